/// The recursive-descent parser behind ``JSONParser``, reading a contiguous UTF-8 buffer.
///
/// Recursion depth is bounded by `maxDepth`, so deep input fails with an error instead of exhausting the stack.
struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    /// Whether a key repeated within one object is an error (otherwise the last value wins).
    let rejectingDuplicateKeys: Bool
    var offset = 0
    /// Reused for strings containing escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, rejectingDuplicateKeys: Bool) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.rejectingDuplicateKeys = rejectingDuplicateKeys
    }

    /// Parses the whole buffer as one value surrounded by optional whitespace.
    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if offset < bytes.count { throw unexpected(at: offset) }
        return value
    }

    // MARK: - Values

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSONValue {
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
            let keyOffset = offset
            let key = try parseString()
            if rejectingDuplicateKeys, object.index(forKey: key) != nil {
                throw JSONParseError(offset: keyOffset, message: "duplicate key \(Self.quoted(key))")
            }
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

    // MARK: - Whitespace and errors

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    func endOfInput() -> JSONParseError {
        JSONParseError(offset: bytes.count, message: "unexpected end of input")
    }

    func unexpected(at position: Int) -> JSONParseError {
        let byte = bytes[position]
        if byte >= 0x20 && byte < 0x7F {
            let character = Character(Unicode.Scalar(byte))
            return JSONParseError(offset: position, message: "unexpected character '\(character)'")
        }
        return JSONParseError(offset: position, message: "unexpected byte \(Self.hex(byte))")
    }

    func controlCharacter(at position: Int) -> JSONParseError {
        JSONParseError(offset: position, message: "unescaped control character \(Self.hex(bytes[position])) in string")
    }

    func invalidUTF8(at position: Int) -> JSONParseError {
        JSONParseError(offset: position, message: "invalid UTF-8 byte \(Self.hex(bytes[position])) in string")
    }

    /// A key for an error message, in quotes and cut at 64 characters.
    static func quoted(_ key: String) -> String {
        key.count > 64 ? "'\(key.prefix(64))…'" : "'\(key)'"
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0x0\(digits)" : "0x\(digits)"
    }
}
