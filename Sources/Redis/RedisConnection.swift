import CHiredis
import CHiredisShims
import EventLoop

/// One hiredis async context on the event loop, from connect until hiredis frees it.
///
/// `ac->data` points at this object without a retain: the client keeps the connection alive for as long
/// as the context exists (until the connect-failure or disconnect callback, or ``close()``), and every
/// command hiredis holds keeps its connection alive too. The object is never reused for a second context.
@LoopActor
final class RedisConnection {
    /// Told about the connection's life; weak so a dropped client lets its connection go.
    weak var delegate: (any RedisConnectionDelegate)?
    /// The commands hiredis holds, oldest first.
    private(set) var inFlight = CommandQueue()
    /// Whether the TCP connection is established.
    private(set) var isConnected = false
    /// hiredis' message for why the connection failed or ended, if it gave one.
    private(set) var errorMessage: String?
    private var context: UnsafeMutablePointer<redisAsyncContext>?

    /// Whether hiredis still has the context.
    var isOpen: Bool { context != nil }

    /// Starts a non-blocking connect on the loop's event base.
    /// - Returns: false when hiredis failed at once (``errorMessage`` says why); no callback follows then.
    func open(host: String, port: Int) -> Bool {
        guard let context = vmh_redis_connect(host, Int32(clamping: port)) else {
            errorMessage = "out of memory"
            return false
        }
        if vmh_redis_error(context) != 0 {
            errorMessage = String(cString: vmh_redis_error_message(context))
            // NB: never attached and never connected: this frees at once, with no callback.
            vmh_redis_free(context)
            return false
        }
        vmh_redis_set_data(context, Unmanaged.passUnretained(self).toOpaque())
        vmh_redis_set_connect_callback(context) { context, status in
            guard let connection = RedisConnection.owner(of: context) else { return }
            let connected = status == vmh_redis_ok
            let message = connected ? nil : context.map { String(cString: vmh_redis_error_message($0)) }
            LoopActor.assumeIsolated {
                HiredisCallback.run { connection.didConnect(connected, message: message) }
            }
        }
        vmh_redis_set_disconnect_callback(context) { context, status in
            guard let connection = RedisConnection.owner(of: context) else { return }
            let message = status == vmh_redis_ok ? nil : context.map { String(cString: vmh_redis_error_message($0)) }
            LoopActor.assumeIsolated {
                HiredisCallback.run { connection.didDisconnect(message: message) }
            }
        }
        guard vmh_redis_attach(context, EventLoop.shared.base) == vmh_redis_ok else {
            errorMessage = "cannot attach to the event loop"
            vmh_redis_free(context)
            return false
        }
        self.context = context
        return true
    }

    /// Hands `command` to hiredis, already encoded (binary-safe, no format string).
    /// - Returns: false when hiredis refused it (the context is closing); the command is untouched then.
    func send(_ command: PendingCommand) -> Bool {
        guard let context, command.command.withEncoded({ hand($0, answeredTo: command) }) == true else { return false }
        vmh_redis_schedule_write(context)
        return true
    }

    /// Hands `encoded` to hiredis, its reply to be given to `command` (whose own command is not sent), without
    /// asking for the write event (the caller does, once: `vmh_redis_schedule_write`).
    private func hand(_ encoded: UnsafeRawBufferPointer, answeredTo command: PendingCommand) -> Bool {
        guard let context else { return false }
        let privdata = Unmanaged.passRetained(command).toOpaque()
        let status = vmh_redis_append_command(
            context, redisCommandReplied, privdata, encoded.baseAddress?.assumingMemoryBound(to: CChar.self),
            encoded.count)
        guard status == vmh_redis_ok else {
            Unmanaged<PendingCommand>.fromOpaque(privdata).release()
            return false
        }
        command.connection = self
        command.markSent()
        inFlight.append(command)
        return true
    }

    /// Hands a transaction to hiredis: its standalone commands, each answered to `standaloneReplies`, then
    /// `MULTI`, each queued command and `answer` (an `EXEC`). The queued commands have no callback: hiredis drops
    /// their replies (`+OK`, `+QUEUED`, or an error that makes `EXEC` fail). With nothing queued, the last
    /// standalone command is answered to `answer` instead, and neither `MULTI` nor `EXEC` is sent.
    /// - Returns: false when hiredis refused a part (the context is closing: nothing more goes out); `answer` is
    ///   untouched then.
    func send(
        _ transaction: borrowing RedisTransaction, answer: PendingCommand, standaloneReplies: ReplyCollector?
    ) -> Bool {
        guard let context else { return false }
        // NB: the write event asked for once, after the transaction's last command, not at each (when a part was
        // refused, the context is closing: hiredis' own function would not ask for it either).
        func scheduled(_ handed: Bool) -> Bool {
            if handed { vmh_redis_schedule_write(context) }
            return handed
        }
        /// Hands one encoded command to hiredis without a callback.
        func handOver(_ command: UnsafeBufferPointer<UInt8>) -> Bool {
            vmh_redis_append_command(
                context, nil, nil, UnsafeRawPointer(command.baseAddress)?.assumingMemoryBound(to: CChar.self),
                command.count) == vmh_redis_ok
        }
        let multi: StaticString = "*1\r\n$5\r\nMULTI\r\n"
        let isQueued = transaction.queuedCount > 0
        // NB: room for the whole transaction first: hiredis copies each command into its output buffer, which it
        // empties after every write and otherwise grows by doubling (~800 instructions a command, callgrind).
        vmh_redis_reserve(
            context,
            transaction.byteCount
                + (isQueued ? multi.utf8CodeUnitCount + (answer.command.withEncoded { $0.count } ?? 0) : 0))
        var unanswered = transaction.standaloneCount - (isQueued ? 0 : 1)
        let handed = transaction.forEachStandaloneCommand { command in
            guard unanswered > 0 else { return hand(UnsafeRawBufferPointer(command), answeredTo: answer) }
            unanswered -= 1
            return standaloneReplies?.hand(command, to: context) ?? false
        }
        guard handed, isQueued else { return scheduled(handed) }
        guard multi.withUTF8Buffer(handOver), transaction.forEachQueuedCommand(handOver) else { return false }
        return scheduled(answer.command.withEncoded { hand($0, answeredTo: answer) } ?? false)
    }

    /// Writes the commands handed over so far to the socket now rather than on the write event (the loop's next
    /// turn). Must not be called from inside a hiredis callback.
    func writeNow() {
        guard let context, isConnected, !HiredisCallback.isRunning else { return }
        HiredisCallback.run { vmh_redis_write_now(context) }
    }

    /// Frees the context now: hiredis fails every command it holds (NULL replies), then reports the
    /// disconnect if it had connected. Must not be called from inside a hiredis callback.
    func close(reason: String = "closed") {
        guard let context else { return }
        precondition(!HiredisCallback.isRunning, "redisAsyncFree inside a hiredis callback")
        self.context = nil
        if errorMessage == nil { errorMessage = reason }
        vmh_redis_free(context)
        // NB: commands hiredis never called back would be a leak and a hung caller; there are none, as
        // hiredis runs every pending callback in `redisAsyncFree`. Finish any survivor all the same.
        for command in inFlight.removeAll() {
            command.connection = nil
            command.finish(.failure(.unavailable))
        }
    }

    private func didConnect(_ connected: Bool, message: String?) {
        if connected {
            isConnected = true
            delegate?.connectionDidConnect(self)
        } else {
            // NB: hiredis frees the context right after this callback, then fails the commands it holds.
            context = nil
            errorMessage = message ?? "connect failed"
            delegate?.connectionDidEnd(self)
        }
    }

    private func didDisconnect(message: String?) {
        context = nil
        isConnected = false
        if errorMessage == nil { errorMessage = message ?? "connection closed" }
        delegate?.connectionDidEnd(self)
    }

    fileprivate func didFinish(_ command: PendingCommand, with outcome: Result<RedisReply, RedisError>) {
        inFlight.remove(command)
        command.connection = nil
        command.finish(outcome)
    }

    private nonisolated static func owner(of context: UnsafePointer<redisAsyncContext>?) -> RedisConnection? {
        guard let context, let data = vmh_redis_data(context) else { return nil }
        return Unmanaged<RedisConnection>.fromOpaque(data).takeUnretainedValue()
    }

    /// A command's outcome from hiredis' reply: NULL means the connection went away first.
    fileprivate nonisolated static func outcome(of reply: UnsafePointer<redisReply>?) -> Result<RedisReply, RedisError>
    {
        guard let reply else { return .failure(.unavailable) }
        guard let copied = RedisReply(copying: reply) else {
            return .failure(.protocolError("unknown reply type \(vmh_redis_reply_type(reply))"))
        }
        if case .error(let message) = copied { return .failure(.server(message)) }
        return .success(copied)
    }
}

/// What a ``RedisConnection`` tells its client.
@LoopActor
protocol RedisConnectionDelegate: AnyObject {
    /// The TCP connection is up.
    func connectionDidConnect(_ connection: RedisConnection)
    /// The connect failed or the connection ended; hiredis is done with the context.
    func connectionDidEnd(_ connection: RedisConnection)
}

/// Tracks whether the loop is inside a hiredis callback, where freeing a context is unsafe.
@LoopActor
enum HiredisCallback {
    private static var depth = 0

    /// Whether a hiredis callback is running.
    static var isRunning: Bool { depth > 0 }

    static func run(_ body: () -> Void) {
        depth += 1
        defer { depth -= 1 }
        body()
    }
}

/// hiredis' reply callback of every command. NB: a function outside the loop's isolation rather than a closure
/// written in `send(_:)`: a closure written in an isolated method is isolated itself, and one that C calls then
/// checks its executor on every call (docs/performance.md, "Receipts"); `LoopActor.assumeIsolated` checks the
/// thread.
private func redisCommandReplied(
    _ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
    _ privdata: UnsafeMutableRawPointer?
) {
    guard let privdata else { return }
    // NB: hiredis frees the reply when this callback returns: copy it now.
    let typed = reply.map { UnsafePointer($0.assumingMemoryBound(to: redisReply.self)) }
    let outcome = RedisConnection.outcome(of: typed)
    // NB: hiredis calls this on the loop thread, with the command it was given (its retain is ours now).
    nonisolated(unsafe) let retained = privdata
    LoopActor.assumeIsolated {
        let command = Unmanaged<PendingCommand>.fromOpaque(retained).takeRetainedValue()
        HiredisCallback.run { command.connection?.didFinish(command, with: outcome) }
    }
}
