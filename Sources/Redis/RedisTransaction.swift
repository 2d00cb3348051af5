import Bytes

/// Commands Redis runs as one atomic step: sent as `MULTI`, the commands and `EXEC`
/// (`RedisClient.send(_:then:)` with a transaction), answered by `EXEC`'s array (one reply per command, in order;
/// a command that failed at run time gives its error there, and the others still run).
///
/// NB: built into one buffer, each command with its array header, and handed to hiredis command by command
/// (hiredis pairs each reply with the command that asked for it); only `EXEC` is answered to the caller.
public struct RedisTransaction: ~Copyable {
    /// Every command, `*N\r\n` then its arguments.
    private var text: RedisArguments
    /// Where each command ends in `text`.
    private var ends: [Int] = []

    /// No commands, with room for `capacity` bytes before the buffer grows.
    public init(capacity: Int = 4096) {
        text = RedisArguments(capacity: capacity)
        ends.reserveCapacity(64)
    }

    /// The number of commands.
    public var count: Int { ends.count }

    public var isEmpty: Bool { ends.isEmpty }

    /// The bytes of the encoded commands.
    public var byteCount: Int { text.byteCount }

    /// Appends one command of `argumentCount` arguments (its name first), which `arguments` appends.
    public mutating func append(argumentCount: Int, _ arguments: (inout RedisArguments) -> Void) {
        text.appendArrayHeader(argumentCount)
        let before = text.count
        arguments(&text)
        assert(
            text.count - before == argumentCount,
            "a command of \(text.count - before) arguments announced as \(argumentCount)")
        ends.append(text.byteCount)
    }

    /// Calls `body` with each encoded command, in order.
    func forEachCommand(_ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
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
