/// Exact powers of ten representable as `Double`, for the fast number path.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// The recursive-descent parser behind ``JSONParser``, reading a contiguous UTF-8 buffer.
///
/// Recursion depth is bounded by `maxDepth`, so deep input fails with an error instead of exhausting the stack.
struct JSONReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    private var offset = 0
    /// Reused for strings containing escapes.
    private var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    /// Parses the whole buffer as one value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if offset < bytes.count { throw unexpected(at: offset) }
        return value
    }

    // MARK: - Values

    private mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        guard offset < bytes.count else { throw endOfInput() }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpected(at: offset)
        }
    }

    private mutating func parseLiteral(_ text: String, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        for expected in text.utf8 {
            guard offset < bytes.count else { throw endOfInput() }
            guard bytes[offset] == expected else { throw unexpected(at: offset) }
            offset += 1
        }
        return value
    }

    private mutating func parseArray(depth: Int) throws(JSONParseError) -> JSONValue {
        try checkDepth(depth)
        offset += 1
        skipWhitespace()
        if offset < bytes.count && bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return .array([])
        }
        var elements: [JSONValue] = []
        while true {
            elements.append(try parseValue(depth: depth))
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput() }
            switch bytes[offset] {
            case UInt8(ascii: ","):
                offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return .array(elements)
            default:
                throw unexpected(at: offset)
            }
        }
    }

    private mutating func parseObject(depth: Int) throws(JSONParseError) -> JSONValue {
        try checkDepth(depth)
        offset += 1
        skipWhitespace()
        if offset < bytes.count && bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return .object(JSONObject())
        }
        var object = JSONObject()
        while true {
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput() }
            guard bytes[offset] == UInt8(ascii: "\"") else { throw unexpected(at: offset) }
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput() }
            guard bytes[offset] == UInt8(ascii: ":") else { throw unexpected(at: offset) }
            offset += 1
            object[key] = try parseValue(depth: depth)
            skipWhitespace()
            guard offset < bytes.count else { throw endOfInput() }
            switch bytes[offset] {
            case UInt8(ascii: ","):
                offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return .object(object)
            default:
                throw unexpected(at: offset)
            }
        }
    }

    private func checkDepth(_ depth: Int) throws(JSONParseError) {
        if depth > maxDepth {
            throw JSONParseError(offset: offset, message: "nesting deeper than \(maxDepth) levels")
        }
    }

    // MARK: - Strings

    /// Parses the string starting at the opening quote at `offset`.
    private mutating func parseString() throws(JSONParseError) -> String {
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
        case 0xE0: length = 3; secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondHigh = 0x9F
        case 0xF0: length = 4; secondLow = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondHigh = 0x8F
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

    // MARK: - Numbers

    /// Parses the number starting at `offset` (a `-` or a digit).
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = offset
        var position = offset
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }

        var integer = 0
        var integerOverflow = false
        var mantissa = DecimalMantissa()

        try expectDigit(at: position)
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count && isDigit(bytes[position]) {
                throw JSONParseError(offset: position - 1, message: "leading zero in number")
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                let digit = Int(bytes[position] &- UInt8(ascii: "0"))
                if !integerOverflow {
                    let (shifted, overflow1) = integer.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) =
                        negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                    integerOverflow = overflow1 || overflow2
                    integer = next
                }
                mantissa.appendIntegerDigit(UInt64(digit))
                position += 1
            }
        }

        var isInteger = true
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            try expectDigit(at: position)
            while position < bytes.count, isDigit(bytes[position]) {
                mantissa.appendFractionDigit(UInt64(bytes[position] &- UInt8(ascii: "0")))
                position += 1
            }
        }

        if position < bytes.count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            isInteger = false
            position += 1
            var exponentNegative = false
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            try expectDigit(at: position)
            var exponent = 0
            while position < bytes.count, isDigit(bytes[position]) {
                // Saturate: anything this large is out of range (or zero) anyway.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(bytes[position] &- UInt8(ascii: "0")) }
                position += 1
            }
            mantissa.exponent += exponentNegative ? -exponent : exponent
        }
        offset = position

        if isInteger && !integerOverflow { return .int(integer) }

        let value: Double
        if let exact = mantissa.exactValue {
            value = negative ? -exact : exact
        } else {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            value = Double(text) ?? .infinity
        }
        guard value.isFinite else { throw JSONParseError(offset: start, message: "number out of range") }
        return .double(value)
    }

    private func expectDigit(at position: Int) throws(JSONParseError) {
        guard position < bytes.count else { throw endOfInput() }
        guard isDigit(bytes[position]) else { throw unexpected(at: position) }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: - Whitespace and errors

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private func endOfInput() -> JSONParseError {
        JSONParseError(offset: bytes.count, message: "unexpected end of input")
    }

    private func unexpected(at position: Int) -> JSONParseError {
        let byte = bytes[position]
        if byte >= 0x20 && byte < 0x7F {
            let character = Character(Unicode.Scalar(byte))
            return JSONParseError(offset: position, message: "unexpected character '\(character)'")
        }
        return JSONParseError(offset: position, message: "unexpected byte \(Self.hex(byte))")
    }

    private func controlCharacter(at position: Int) -> JSONParseError {
        JSONParseError(offset: position, message: "unescaped control character \(Self.hex(bytes[position])) in string")
    }

    private func invalidUTF8(at position: Int) -> JSONParseError {
        JSONParseError(offset: position, message: "invalid UTF-8 byte \(Self.hex(bytes[position])) in string")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0x0\(digits)" : "0x\(digits)"
    }
}

/// The significant digits and decimal exponent of a number being parsed, for the exact fast conversion
/// (Clinger's fast path): a mantissa below 2^53 scaled by an exact power of ten is correctly rounded.
private struct DecimalMantissa {
    var digits: UInt64 = 0
    var significantDigits = 0
    /// Set when digits beyond the 19 that fit were dropped; the slow path handles those.
    var truncated = false
    /// The power of ten applied to `digits`.
    var exponent = 0

    mutating func appendIntegerDigit(_ digit: UInt64) {
        if !append(digit) { exponent += 1 }
    }

    mutating func appendFractionDigit(_ digit: UInt64) {
        if append(digit) { exponent -= 1 }
    }

    /// Appends a digit; false when it had to be dropped.
    private mutating func append(_ digit: UInt64) -> Bool {
        if digits == 0 && digit == 0 { return true }
        guard significantDigits < 19 else {
            truncated = true
            return false
        }
        digits = digits * 10 + digit
        significantDigits += 1
        return true
    }

    /// The value when it can be computed exactly with one multiplication or division, otherwise nil.
    var exactValue: Double? {
        if digits == 0 { return 0 }
        guard !truncated, digits <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let significand = Double(digits)
        return exponent < 0 ? significand / exactPowersOfTen[-exponent] : significand * exactPowersOfTen[exponent]
    }
}
