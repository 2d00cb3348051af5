/// HTML's named character references (`&eacute;` is `é`): all 2,231 of them, looked up by name in ``table``
/// (`Generated/HTMLEntities+Table.swift`, written by `scripts/generate-html-entities` from Python's
/// `html.entities.html5`).
///
/// NB: the table is one string literal, not a dictionary: it type-checks at once, sits in the binary's
/// read-only data, and costs nothing until the first lookup, which builds the index of its lines (2,231
/// offsets). A lookup is a binary search over the lines by name.
enum HTMLEntities {
    /// Appends the code points the reference named `name` stands for to `text` and returns true; false
    /// (appending nothing) when no reference has that name. `name` is what follows `&`, with its `;` when it has
    /// one (`eacute;`; the legacy names, such as `eacute`, are also in the table without it). Case matters.
    static func append(named name: ArraySlice<Unicode.Scalar>, to text: inout String.UnicodeScalarView) -> Bool {
        table.withUTF8Buffer { bytes in
            var low = 0
            var high = lineStarts.count
            while low < high {
                let middle = (low + high) / 2
                switch compare(name, withLineAt: Int(lineStarts[middle]), of: bytes) {
                case .before:
                    high = middle
                case .after:
                    low = middle + 1
                case .match(let valueStart):
                    return appendCodePoints(from: valueStart, of: bytes, to: &text)
                }
            }
            return false
        }
    }

    /// Where each line of ``table`` starts: built at the first lookup.
    private static let lineStarts: [Int32] = table.withUTF8Buffer { bytes in
        var starts: [Int32] = [0]
        for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
            starts.append(Int32(offset + 1))
        }
        return starts
    }

    /// Where a name sorts against a line's name.
    private enum Order {
        case before
        case after
        /// The same name; the line's code points start at this offset.
        case match(Int)
    }

    /// Compares `name` with the name of the line at `start` (its bytes up to the space), byte by byte: the order
    /// the generator sorted the lines in (a name sorts before the longer names it starts).
    private static func compare(
        _ name: ArraySlice<Unicode.Scalar>, withLineAt start: Int, of bytes: UnsafeBufferPointer<UInt8>
    ) -> Order {
        var index = start
        for scalar in name {
            // NB: every name is ASCII and a space (0x20) sorts before all its bytes, so the end of the line's
            // name compares like a byte smaller than any scalar of `name`.
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") || scalar.value > UInt32(byte) { return .after }
            if scalar.value < UInt32(byte) { return .before }
            index += 1
        }
        return bytes[index] == UInt8(ascii: " ") ? .match(index + 1) : .before
    }

    /// Appends the code points written in hex from `start` to the end of the line; false (appending nothing) if
    /// one is not a valid scalar (never, for the generated table).
    private static func appendCodePoints(
        from start: Int, of bytes: UnsafeBufferPointer<UInt8>, to text: inout String.UnicodeScalarView
    ) -> Bool {
        var decoded = String.UnicodeScalarView()
        var value: UInt32 = 0
        var index = start
        while true {
            let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "\n")
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") {
                guard let scalar = Unicode.Scalar(value) else { return false }
                decoded.append(scalar)
                value = 0
                if byte == UInt8(ascii: "\n") { break }
            } else {
                let digit = byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : byte - UInt8(ascii: "A") + 10
                value = value &* 16 &+ UInt32(digit)
            }
            index += 1
        }
        text.append(contentsOf: decoded)
        return true
    }
}
