import CHiredis
import CHiredisShims

/// The replies of a transaction's standalone commands (``RedisTransaction``), kept in order until the answer
/// of its last command gives them to the caller with its own.
///
/// While hiredis holds one of the commands (from `redisAsyncFormattedCommand` to its callback) it owns one retain
/// of this collector, given back in the callback: the collector outlives a caller that stopped waiting (a
/// timeout) and a connection that went away (hiredis then calls every callback with no reply).
///
/// NB: not isolated to the loop, though only the loop's thread uses it (hiredis calls back there, and the client
/// reads it there): hiredis' callback would have to enter the isolation with `LoopActor.assumeIsolated`, whose
/// closure context was allocated on every reply (~150 instructions a command, callgrind).
final class ReplyCollector {
    /// The replies so far, in the order of the commands.
    private(set) var replies: [RedisReply] = []

    init(capacity: Int) {
        replies.reserveCapacity(capacity)
    }

    /// Hands one encoded command to hiredis, its reply to be collected here. The caller asks for the write event
    /// (`vmh_redis_schedule_write`).
    /// - Returns: false when hiredis refused it (the context is closing).
    func hand(_ command: UnsafeBufferPointer<UInt8>, to context: UnsafeMutablePointer<redisAsyncContext>) -> Bool {
        let privdata = Unmanaged.passRetained(self).toOpaque()
        let status = vmh_redis_append_command(
            context, redisReplyCollected, privdata,
            UnsafeRawPointer(command.baseAddress)?.assumingMemoryBound(to: CChar.self), command.count)
        guard status == vmh_redis_ok else {
            Unmanaged<ReplyCollector>.fromOpaque(privdata).release()
            return false
        }
        return true
    }

    fileprivate func collect(_ reply: RedisReply) {
        replies.append(reply)
    }
}

/// hiredis' reply callback of a standalone command. NB: a function outside the loop's isolation, as
/// `redisCommandReplied` (RedisConnection.swift) and for the same reason.
private func redisReplyCollected(
    _ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
    _ privdata: UnsafeMutableRawPointer?
) {
    guard let privdata else { return }
    // NB: hiredis frees the reply when this callback returns: copy it now. No reply: the connection went away,
    // and the answer of the last command fails as a whole.
    let copied = reply.map { reply in
        let typed = UnsafePointer(reply.assumingMemoryBound(to: redisReply.self))
        return RedisReply(copying: typed) ?? .error("unknown reply type \(vmh_redis_reply_type(typed))")
    }
    let collector = Unmanaged<ReplyCollector>.fromOpaque(privdata).takeRetainedValue()
    if let copied { collector.collect(copied) }
}
