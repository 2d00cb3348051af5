extension Array where Element == UInt8 {
    /// Appends the UTF-8 bytes of a literal in one copy. NB: `append(contentsOf: "…".utf8)` walks the view
    /// through the generic sequence path, for every literal of every event and patch.
    @inlinable
    package mutating func append(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends the UTF-8 bytes of `string` in one copy (from its contiguous storage).
    @inlinable
    package mutating func append(utf8 string: String) {
        var string = string
        string.withUTF8 { append(contentsOf: $0) }
    }
}
