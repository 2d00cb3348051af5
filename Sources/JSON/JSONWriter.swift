import Bytes

/// The byte-level writers behind ``JSONValue/serialize(into:)``.
enum JSONWriter {
    /// Appends `value` in decimal.
    static func writeInteger(_ value: Int, into buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value))
            return
        }
        // NB: the digits made on the stack, then appended one by one: numbers are short, and appending them as a
        // buffer took the generic path (~50 instructions more a number).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: DecimalDigits.maximumCount) { digits in
            guard let base = digits.baseAddress else { return }
            let end = base + DecimalDigits.maximumCount
            var digit = DecimalDigits.fill(value, endingAt: end)
            while digit < end {
                buffer.append(digit.pointee)
                digit += 1
            }
        }
    }

    /// Appends `value` as its shortest round-trip decimal form, or `null` when it is not finite.
    static func writeDouble(_ value: Double, into buffer: inout [UInt8]) {
        guard value.isFinite else {
            buffer.append("null")
            return
        }
        // Swift's description is the shortest representation that round-trips, and is valid JSON for finite
        // values ("5.0", "-0.0", "1e-05", "1e+20").
        buffer.append(contentsOf: value.description.utf8)
    }

    /// Appends `string` as a quoted, escaped JSON string.
    static func writeString(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        let written: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            writeEscapedContents(utf8, into: &buffer)
        }
        if written == nil {
            var contiguous = string
            contiguous.makeContiguousUTF8()
            contiguous.withUTF8 { writeEscapedContents($0, into: &buffer) }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Whether `byte` is copied into a JSON string as it is: everything but controls, quote, backslash and the
    /// lead byte of U+2028/U+2029 (escaped when the rest of those follows).
    @inline(__always)
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0xE2
    }

    /// Appends the escaped contents of a string (without quotes); unescaped runs are copied in bulk.
    static func writeEscapedContents(_ utf8: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        var runStart = 0
        var position = 0
        let end = utf8.count
        while position < end {
            let byte = utf8[position]
            if isPlain(byte) {
                position += 1
                continue
            }
            var length = 1
            if byte == 0xE2 {
                // U+2028 is E2 80 A8, U+2029 is E2 80 A9.
                guard position + 2 < end, utf8[position + 1] == 0x80,
                    utf8[position + 2] == 0xA8 || utf8[position + 2] == 0xA9
                else {
                    position += 1
                    continue
                }
                length = 3
            }
            if runStart < position {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
            }
            switch byte {
            case UInt8(ascii: "\""): buffer.append(#"\""#)
            case UInt8(ascii: "\\"): buffer.append(#"\\"#)
            case 0x0A: buffer.append(#"\n"#)
            case 0x0D: buffer.append(#"\r"#)
            case 0x09: buffer.append(#"\t"#)
            case 0x08: buffer.append(#"\b"#)
            case 0x0C: buffer.append(#"\f"#)
            case 0xE2: buffer.append(contentsOf: utf8[position + 2] == 0xA8 ? #"\u2028"#.utf8 : #"\u2029"#.utf8)
            default:
                buffer.append(#"\u00"#)
                buffer.append(hexDigit(byte >> 4))
                buffer.append(hexDigit(byte & 0x0F))
            }
            position += length
            runStart = position
        }
        if runStart < end {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<end]))
        }
    }

    /// The lowercase hexadecimal digit for a nibble.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ (nibble &- 10)
    }
}
