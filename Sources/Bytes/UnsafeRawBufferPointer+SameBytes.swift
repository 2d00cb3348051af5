extension UnsafeRawBufferPointer {
    /// Whether `other` holds the same bytes. NB: eight bytes at a time: `elementsEqual` walks a byte at a time
    /// through its iterators (~25 instructions a byte), and the journal compares a view model's extras on every
    /// write.
    public func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        var offset = 0
        while offset + 8 <= count {
            guard
                loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == other.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard self[offset] == other[offset] else { return false }
            offset += 1
        }
        return true
    }
}
