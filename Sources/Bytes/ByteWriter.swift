/// A growable byte buffer for text built from many small pieces: a key, a quote, a number, a few bytes.
///
/// NB: not an `[UInt8]`: each append to an array checks uniqueness and capacity and goes through the generic
/// copy (~100 instructions to append four bytes), and the journal writes a snapshot and a Redis call of such
/// pieces on every command. Here a piece is a capacity check and a copy. Noncopyable: the writer owns its
/// buffer and frees it; ``bytes`` hands out a copy.
public struct ByteWriter: ~Copyable {
    @usableFromInline var storage: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0

    /// An empty writer with room for `capacity` bytes before it grows.
    public init(capacity: Int = 256) {
        self.capacity = max(16, capacity)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// The number of bytes written.
    @inlinable public var count: Int { written }

    /// The bytes written (a copy).
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: written)) }

    /// Calls `body` with the bytes written, without a copy.
    @inlinable
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try body(UnsafeBufferPointer(start: storage, count: written))
    }

    /// Empties the writer, keeping its buffer.
    @inlinable @inline(__always)
    public mutating func removeAll() {
        written = 0
    }

    /// Makes room for `bytes` more (so that the puts after it never grow the buffer one by one).
    @inlinable @inline(__always)
    public mutating func reserve(_ bytes: Int) {
        if written + bytes > capacity { grow(toAtLeast: written + bytes) }
    }

    @usableFromInline
    mutating func grow(toAtLeast minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.initialize(from: storage, count: written)
        storage.deallocate()
        storage = newStorage
        capacity = newCapacity
    }

    /// Writes through `body`, which gets the end of the bytes written (with room for `bytes` more made first)
    /// and returns how many it wrote there (at most `bytes`): for a piece of a few parts, one capacity check.
    @inlinable @inline(__always)
    public mutating func write(reserving bytes: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(bytes)
        let count = body(storage + written)
        precondition(count >= 0 && count <= bytes, "wrote outside the room reserved")
        written += count
    }

    @inlinable @inline(__always)
    public mutating func put(_ byte: UInt8) {
        reserve(1)
        storage[written] = byte
        written += 1
    }

    @inlinable @inline(__always)
    public mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        reserve(bytes.count)
        (storage + written).update(from: base, count: bytes.count)
        written += bytes.count
    }

    @inlinable @inline(__always)
    public mutating func put(_ literal: StaticString) {
        put(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    @inlinable @inline(__always)
    public mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    @inlinable @inline(__always)
    public mutating func put(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    /// Puts the UTF-8 of `string` (from its contiguous storage).
    @inlinable @inline(__always)
    public mutating func put(utf8 string: String) {
        var string = string
        string.withUTF8 { put($0) }
    }

    /// Puts `value` in decimal.
    @inlinable @inline(__always)
    public mutating func putDecimal(_ value: Int) {
        let length = DecimalDigits.count(of: value)
        reserve(length)
        // NB: the digits from the last, in place.
        _ = DecimalDigits.fill(value, endingAt: storage + written + length)
        written += length
    }

    /// Drops the bytes from `count` on (a count beyond those written drops nothing).
    public mutating func truncate(to count: Int) {
        written = min(max(0, count), written)
    }
}
