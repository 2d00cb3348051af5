/// String parsing: UTF-8 validation and escape decoding.
extension JSONReader {
    /// Parses the string starting at the opening quote at `offset`.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = offset + 1
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                offset = position + 1
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(contentStart: start, firstEscape: position)
            }
            if byte < 0x20 { throw controlCharacter(at: position) }
            position = byte < 0x80 ? position + 1 : try validateUTF8Sequence(at: position)
        }
        throw JSONParseError(offset: start - 1, message: "unterminated string")
    }

    /// Continues ``parseString()`` from its first backslash, building the contents in `scratch`.
    private mutating func parseEscapedString(contentStart: Int, firstEscape: Int) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<firstEscape]))
        var position = firstEscape
        var runStart = firstEscape
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<position]))
                if byte == UInt8(ascii: "\"") {
                    offset = position + 1
                    return String(decoding: scratch, as: UTF8.self)
                }
                position = try decodeEscape(at: position)
                runStart = position
            } else if byte < 0x20 {
                throw controlCharacter(at: position)
            } else {
                position = byte < 0x80 ? position + 1 : try validateUTF8Sequence(at: position)
            }
        }
        throw JSONParseError(offset: contentStart - 1, message: "unterminated string")
    }

    /// Decodes the escape sequence whose backslash is at `position` into `scratch`; returns the position after it.
    private mutating func decodeEscape(at position: Int) throws(JSONParseError) -> Int {
        guard position + 1 < bytes.count else {
            throw JSONParseError(offset: bytes.count, message: "unterminated string")
        }
        let decoded: UInt8
        switch bytes[position + 1] {
        case UInt8(ascii: "\""): decoded = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): decoded = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): decoded = UInt8(ascii: "/")
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = 0x0A
        case UInt8(ascii: "r"): decoded = 0x0D
        case UInt8(ascii: "t"): decoded = 0x09
        case UInt8(ascii: "u"): return try decodeUnicodeEscape(at: position)
        default:
            throw JSONParseError(offset: position, message: "invalid escape sequence")
        }
        scratch.append(decoded)
        return position + 2
    }

    /// Decodes `\uXXXX` (or a surrogate pair of two) at `position` into `scratch` as UTF-8.
    private mutating func decodeUnicodeEscape(at position: Int) throws(JSONParseError) -> Int {
        let unit = try hexQuad(at: position + 2)
        var scalar = UInt32(unit)
        var end = position + 6
        switch unit {
        case 0xD800..<0xDC00:
            guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: "\\"), bytes[end + 1] == UInt8(ascii: "u") else {
                throw JSONParseError(offset: position, message: "unpaired surrogate in \\u escape")
            }
            let low = try hexQuad(at: end + 2)
            guard (0xDC00..<0xE000).contains(low) else {
                throw JSONParseError(offset: position, message: "unpaired surrogate in \\u escape")
            }
            scalar = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00..<0xE000:
            throw JSONParseError(offset: position, message: "unpaired surrogate in \\u escape")
        default:
            break
        }
        appendUTF8(scalar)
        return end
    }

    /// The value of four hex digits at `position`.
    private func hexQuad(at position: Int) throws(JSONParseError) -> UInt16 {
        var value: UInt16 = 0
        for index in position..<(position + 4) {
            guard index < bytes.count else {
                throw JSONParseError(offset: position - 2, message: "incomplete \\u escape")
            }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(offset: position - 2, message: "invalid \\u escape")
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Validates the multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF) whose
    /// lead byte is at `position`; returns the position after it.
    private func validateUTF8Sequence(at position: Int) throws(JSONParseError) -> Int {
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch bytes[position] {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            secondHigh = 0x9F
        case 0xF0:
            length = 4
            secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            secondHigh = 0x8F
        default: throw invalidUTF8(at: position)
        }
        guard position + length <= bytes.count else { throw invalidUTF8(at: position) }
        let second = bytes[position + 1]
        guard second >= secondLow && second <= secondHigh else { throw invalidUTF8(at: position) }
        for index in (position + 2)..<(position + length) where bytes[index] & 0xC0 != 0x80 {
            throw invalidUTF8(at: position)
        }
        return position + length
    }
}
