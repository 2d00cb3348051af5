import Bytes

/// One command in the Redis protocol (RESP): an array of binary-safe bulk strings, encoded as its arguments
/// are appended, in the form hiredis sends as it is (`redisAsyncFormattedCommand`).
///
/// NB: encoded in place rather than kept as `[[UInt8]]` for `redisAsyncCommandArgv`: a journal write has a
/// dozen arguments, and an array per argument, their copy into an argv and hiredis' formatting of each
/// (`sdscatfmt`) cost more than the rest of the write.
public struct RedisCommand: Sendable {
    /// Room before the arguments for the array header (`*N\r\n`), written by ``seal()``.
    private static let headerRoom = 24
    /// The header room, then each argument as `$LENGTH\r\nBYTES\r\n`.
    private var bytes: [UInt8]
    /// Where the encoded command starts in `bytes` once sealed (its header is right before the arguments); nil
    /// when an argument came after the last ``seal()``.
    private var start: Int?
    /// The number of arguments.
    public private(set) var count = 0

    /// The bytes of the encoded arguments (without the array header).
    public var byteCount: Int { bytes.count - Self.headerRoom }

    /// An empty command; append its name first.
    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(Self.headerRoom + capacity)
        bytes.append(contentsOf: repeatElement(0, count: Self.headerRoom))
    }

    /// The command of `arguments` (the name first).
    public init(_ arguments: [[UInt8]]) {
        self.init(capacity: arguments.reduce(0) { $0 + $1.count + 16 })
        for argument in arguments { append(argument) }
    }

    /// Appends one argument.
    public mutating func append(_ argument: some Collection<UInt8>) {
        appendLength(argument.count)
        bytes.append(contentsOf: argument)
        appendCRLF()
    }

    /// Appends one argument from contiguous bytes (a copy with `memcpy`).
    public mutating func append(_ argument: UnsafeBufferPointer<UInt8>) {
        appendLength(argument.count)
        bytes.append(contentsOf: argument)
        appendCRLF()
    }

    /// Appends one argument, UTF-8.
    public mutating func append(_ argument: String) {
        // NB: from the contiguous bytes: appending a `String.UTF8View` goes byte by byte.
        var argument = argument
        argument.withUTF8 { append($0) }
    }

    /// Appends an integer argument in decimal.
    public mutating func append(_ integer: Int) {
        start = nil
        count += 1
        // NB: the whole argument (`$LENGTH\r\nDIGITS\r\n`, at most 27 bytes) is formatted on the stack and
        // appended in one copy: a journal write has seven integers.
        var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &storage) { buffer in
            var first = buffer.count
            Self.prepend(StaticString("\r\n"), to: buffer, before: &first)
            let digitsEnd = first
            Self.prependDecimal(integer, to: buffer, before: &first)
            let length = digitsEnd - first
            Self.prepend(StaticString("\r\n"), to: buffer, before: &first)
            Self.prependDecimal(length, to: buffer, before: &first)
            Self.prepend(StaticString("$"), to: buffer, before: &first)
            bytes.append(
                contentsOf: UnsafeRawBufferPointer(rebasing: buffer[first...]).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Appends one argument that `write` appends to the buffer it is given: for an argument built from parts,
    /// without an array of its own. Its bytes are moved behind their length once written.
    public mutating func appendArgument(_ write: (inout [UInt8]) -> Void) {
        start = nil
        let argumentStart = bytes.count
        write(&bytes)
        let length = bytes.count - argumentStart
        Self.withDecimal(length, between: "$", and: "\r\n") { line in
            bytes.insert(contentsOf: line, at: argumentStart)
        }
        appendCRLF()
        count += 1
    }

    /// Appends one argument of `length` bytes that `write` appends to the buffer it is given: for an argument
    /// built from parts whose length is known first (no move of its bytes behind their length line).
    public mutating func appendArgument(length: Int, _ write: (inout [UInt8]) -> Void) {
        let lineStart = bytes.count
        appendLength(length)
        let argumentStart = bytes.count
        write(&bytes)
        let written = bytes.count - argumentStart
        if written != length {
            assertionFailure("an argument of \(written) bytes announced as \(length)")
            Self.withDecimal(written, between: "$", and: "\r\n") { line in
                bytes.replaceSubrange(lineStart..<argumentStart, with: line)
            }
        }
        appendCRLF()
    }

    /// Appends every argument of `other` after this command's.
    public mutating func append(contentsOf other: RedisCommand) {
        start = nil
        bytes.append(contentsOf: other.bytes[Self.headerRoom...])
        count += other.count
    }

    /// The arguments as encoded, without the array header: for ``append(encoded:count:)`` into other commands
    /// (the journal encodes a session's keys once and copies them into each of its writes).
    public var encodedArguments: [UInt8] { Array(bytes[Self.headerRoom...]) }

    /// Appends `count` arguments as ``encodedArguments`` gave them (one copy, nothing encoded again).
    public mutating func append(encoded: [UInt8], count: Int) {
        encoded.withUnsafeBufferPointer { append(encoded: $0, count: count) }
    }

    /// Appends `count` arguments encoded already (one copy).
    public mutating func append(encoded: UnsafeBufferPointer<UInt8>, count: Int) {
        start = nil
        bytes.append(contentsOf: encoded)
        self.count += count
    }

    /// The argument at `index`, decoded from the encoding (for checks of the first few: a walk from the start).
    public func argument(_ index: Int) -> ArraySlice<UInt8>? {
        guard index >= 0, index < count else { return nil }
        let (start, length) = lengthLine(at: offset(ofArgument: index))
        return bytes[start..<(start + length)]
    }

    /// The arguments from `index` on as a command of their own: to send them behind other first arguments
    /// (`EVAL` and a script's text where `EVALSHA` and its hash were refused).
    public func arguments(from index: Int) -> RedisCommand {
        var rest = RedisCommand(capacity: byteCount)
        let index = max(0, index)
        guard index < count else { return rest }
        rest.bytes.append(contentsOf: bytes[offset(ofArgument: index)...])
        rest.count = count - index
        return rest
    }

    /// Where argument `index` (its `$LENGTH` line) starts in `bytes`: a walk from the first.
    private func offset(ofArgument index: Int) -> Int {
        var offset = Self.headerRoom
        for _ in 0..<index {
            let (start, length) = lengthLine(at: offset)
            offset = start + length + 2
        }
        return offset
    }

    /// Reads the `$LENGTH\r\n` line at `offset`: where the argument's bytes start, and their length.
    private func lengthLine(at offset: Int) -> (start: Int, length: Int) {
        var offset = offset + 1
        var length = 0
        while bytes[offset] != UInt8(ascii: "\r") {
            length = length * 10 + Int(bytes[offset] &- UInt8(ascii: "0"))
            offset += 1
        }
        return (offset + 2, length)
    }

    /// Whether the header is written for the arguments there are (``seal()``).
    public var isSealed: Bool { start != nil }

    /// Writes the array header in front of the arguments: ready for ``withEncoded(_:)``. NB: seal a command
    /// before handing it on while a copy of it is still held: sealing a shared command copies its buffer.
    public mutating func seal() {
        let headerStart = Self.withDecimal(count, between: "*", and: "\r\n") { header in
            let headerStart = Self.headerRoom - header.count
            bytes.replaceSubrange(headerStart..<Self.headerRoom, with: header)
            return headerStart
        }
        start = headerStart
    }

    /// Calls `body` with the encoded command; nil when it is not ``seal()``ed since its last argument.
    public func withEncoded<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let start else { return nil }
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
    }

    /// The encoded command (a copy), for tests and logs.
    public var encoded: [UInt8] {
        var command = self
        command.seal()
        return command.withEncoded { Array($0) } ?? []
    }

    private mutating func appendLength(_ length: Int) {
        start = nil
        Self.withDecimal(length, between: "$", and: "\r\n") { bytes.append(contentsOf: $0) }
        count += 1
    }

    private mutating func appendCRLF() {
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Calls `body` with `value` in decimal between `prefix` and `suffix` (`$`, `*`, CRLF), written on the
    /// stack: no array or string per argument.
    private static func withDecimal<Result>(
        _ value: Int, between prefix: StaticString = "", and suffix: StaticString = "",
        _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &storage) { buffer in
            var start = buffer.count
            prepend(suffix, to: buffer, before: &start)
            prependDecimal(value, to: buffer, before: &start)
            prepend(prefix, to: buffer, before: &start)
            return body(UnsafeRawBufferPointer(rebasing: buffer[start...]).assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Writes `value` in decimal right before `end` in `buffer`, moving `end` to its first digit (or sign).
    private static func prependDecimal(_ value: Int, to buffer: UnsafeMutableRawBufferPointer, before end: inout Int) {
        guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        end = DecimalDigits.fill(value, endingAt: base + end) - base
    }

    /// Writes `literal` right before `end` in `buffer`, moving `end` to its first byte.
    private static func prepend(
        _ literal: StaticString, to buffer: UnsafeMutableRawBufferPointer, before end: inout Int
    ) {
        for index in (0..<literal.utf8CodeUnitCount).reversed() {
            end -= 1
            buffer[end] = literal.utf8Start[index]
        }
    }
}
