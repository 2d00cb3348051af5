import Bytes

/// Arguments in the Redis protocol (`$LENGTH\r\nBYTES\r\n` each), encoded as they are appended into a buffer
/// of their own: for a command built from many small arguments (the journal's write of a batch of sessions),
/// then appended to a ``RedisCommand`` in one copy (`RedisCommand.append(_:)`, below).
///
/// NB: a ``ByteWriter``, not the command's `[UInt8]`: each append to an array checks uniqueness and capacity
/// and goes through the generic copy, which cost ~300 instructions per argument of a journal write.
public struct RedisArguments: ~Copyable {
    private var text: ByteWriter
    /// The number of arguments.
    public private(set) var count = 0

    /// No arguments, with room for `capacity` bytes before the buffer grows.
    public init(capacity: Int = 1024) {
        text = ByteWriter(capacity: capacity)
    }

    /// The bytes of the encoded arguments.
    public var byteCount: Int { text.count }

    /// Calls `body` with the encoded arguments.
    public func withEncoded<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try text.withBytes(body)
    }

    /// Appends one argument.
    public mutating func append(_ argument: UnsafeBufferPointer<UInt8>) {
        appendArgument(length: argument.count) { $0.put(argument) }
    }

    /// Appends one argument.
    public mutating func append(_ argument: [UInt8]) {
        argument.withUnsafeBufferPointer { append($0) }
    }

    /// Appends one argument, UTF-8.
    public mutating func append(_ argument: String) {
        var argument = argument
        argument.withUTF8 { append($0) }
    }

    /// Appends an integer argument in decimal.
    public mutating func append(_ integer: Int) {
        appendArgument(length: DecimalDigits.count(of: integer)) { $0.putDecimal(integer) }
    }

    /// Appends `count` arguments encoded already (``RedisCommand/encodedArguments``): one copy.
    public mutating func append(encoded: [UInt8], count: Int) {
        append(encoded: encoded[...], count: count)
    }

    /// Appends `count` arguments encoded already, the first ones of `encoded` (a prefix of what
    /// ``RedisCommand/encodedArguments`` gave): one copy.
    public mutating func append(encoded: ArraySlice<UInt8>, count: Int) {
        text.put(encoded)
        self.count += count
    }

    /// Starts a command of `count` arguments (`*COUNT\r\n`): for several commands in one buffer
    /// (``RedisTransaction``). Not an argument: ``count`` is unchanged.
    mutating func appendArrayHeader(_ count: Int) {
        text.reserve(24)
        text.put(UInt8(ascii: "*"))
        text.putDecimal(count)
        text.put("\r\n")
    }

    /// Appends one argument of `length` bytes that `write` puts: an argument built from parts whose length is
    /// known first.
    public mutating func appendArgument(length: Int, _ write: (inout ByteWriter) -> Void) {
        text.reserve(length + 24)
        text.put(UInt8(ascii: "$"))
        text.putDecimal(length)
        text.put("\r\n")
        let start = text.count
        write(&text)
        let written = text.count - start
        if written != length {
            assertionFailure("an argument of \(written) bytes announced as \(length)")
            frame(from: start, lineStart: start - 3 - DecimalDigits.count(of: length))
        }
        text.put("\r\n")
        count += 1
    }

    /// Appends one argument that `write` puts, whose length is known only once written (a compressed entry):
    /// its bytes are copied behind their length line.
    public mutating func appendArgument(_ write: (inout ByteWriter) -> Void) {
        let start = text.count
        write(&text)
        frame(from: start, lineStart: start)
        text.put("\r\n")
        count += 1
    }

    /// Puts the length line of the bytes from `start` on in front of them, in place of what lies from
    /// `lineStart` (a length line written before, or nothing).
    private mutating func frame(from start: Int, lineStart: Int) {
        let body = text.withBytes { Array(UnsafeBufferPointer(rebasing: $0[start...])) }
        text.truncate(to: lineStart)
        text.put(UInt8(ascii: "$"))
        text.putDecimal(body.count)
        text.put("\r\n")
        text.put(body)
    }
}

extension RedisCommand {
    /// Appends every argument of `arguments` after this command's (one copy).
    public mutating func append(_ arguments: borrowing RedisArguments) {
        let count = arguments.count
        arguments.withEncoded { append(encoded: $0, count: count) }
    }
}
