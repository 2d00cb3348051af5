import Bytes

/// Commands Redis runs as atomic steps, sent together and answered together (`RedisClient.send(_:then:)` with a
/// transaction): the commands that must run as one step are queued between `MULTI` and `EXEC`; a command that is
/// a step by itself (appended `standalone`) is sent ahead of them, plainly. The answer is an array of one reply
/// per command: the standalone ones first, then `EXEC`'s (a command that failed at run time gives its error
/// there, and the others still run).
///
/// NB: built into two buffers, each command with its array header, and handed to hiredis command by command
/// (hiredis pairs each reply with the command that asked for it). Standalone, because a command queued in a
/// transaction costs Redis its queueing, a `+QUEUED` reply and its share of `EXEC`: ~800 instructions of Redis's
/// for each `RPUSHX` of a journal write (callgrind on `redis-server`, 6.4–6.6k against 5.6–5.8k a command:
/// docs/performance.md, issue 26's eleventh stop), where alone it costs only itself.
public struct RedisTransaction: ~Copyable {
    /// The commands queued in the transaction, `*N\r\n` then its arguments each.
    private var queued: RedisArguments
    /// Where each queued command ends in `queued`.
    private var queuedEnds: [Int] = []
    /// The standalone commands, in the same form.
    private var standalone: RedisArguments
    /// Where each standalone command ends in `standalone`.
    private var standaloneEnds: [Int] = []

    /// No commands, with room for `capacity` bytes of queued commands and as many standalone ones before the
    /// buffers grow.
    public init(capacity: Int = 4096) {
        queued = RedisArguments(capacity: capacity)
        standalone = RedisArguments(capacity: capacity)
        queuedEnds.reserveCapacity(64)
        standaloneEnds.reserveCapacity(64)
    }

    /// The number of commands.
    public var count: Int { standaloneEnds.count + queuedEnds.count }

    /// The number of commands queued between `MULTI` and `EXEC`.
    public var queuedCount: Int { queuedEnds.count }

    /// The number of commands sent ahead of the transaction, each a step by itself.
    public var standaloneCount: Int { standaloneEnds.count }

    public var isEmpty: Bool { count == 0 }

    /// The bytes of the encoded commands.
    public var byteCount: Int { queued.byteCount + standalone.byteCount }

    /// Appends one command of `argumentCount` arguments (its name first), which `arguments` appends: queued in
    /// the transaction, or sent ahead of it when `standalone` (a command that is one step by itself: nothing else
    /// has to run with it in the same step).
    public mutating func append(
        argumentCount: Int, standalone isStandalone: Bool = false, _ arguments: (inout RedisArguments) -> Void
    ) {
        if isStandalone {
            Self.append(argumentCount: argumentCount, arguments, to: &standalone, ends: &standaloneEnds)
        } else {
            Self.append(argumentCount: argumentCount, arguments, to: &queued, ends: &queuedEnds)
        }
    }

    private static func append(
        argumentCount: Int, _ arguments: (inout RedisArguments) -> Void, to text: inout RedisArguments,
        ends: inout [Int]
    ) {
        text.appendArrayHeader(argumentCount)
        let before = text.count
        arguments(&text)
        assert(
            text.count - before == argumentCount,
            "a command of \(text.count - before) arguments announced as \(argumentCount)")
        ends.append(text.byteCount)
    }

    /// Calls `body` with each standalone command, in order, until it returns false.
    func forEachStandaloneCommand(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        Self.forEach(in: standalone, ends: standaloneEnds, body)
    }

    /// Calls `body` with each queued command, in order, until it returns false.
    func forEachQueuedCommand(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        Self.forEach(in: queued, ends: queuedEnds, body)
    }

    private static func forEach(
        in text: borrowing RedisArguments, ends: [Int], _ body: (UnsafeBufferPointer<UInt8>) -> Bool
    ) -> Bool {
        text.withEncoded { bytes in
            var start = 0
            for end in ends {
                guard body(UnsafeBufferPointer(rebasing: bytes[start..<end])) else { return false }
                start = end
            }
            return true
        }
    }
}
