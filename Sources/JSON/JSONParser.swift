/// A strict RFC 8259 JSON parser.
///
/// Accepts any JSON value at the top level surrounded by optional whitespace, and rejects everything else:
/// trailing content, invalid UTF-8, unescaped control characters, lone surrogate escapes, leading zeros, numbers
/// that overflow a `Double`, and nesting deeper than `maxDepth`. Integers that fit in `Int` become `.int`; other
/// numbers become `.double`. A repeated object key keeps its first position and takes the last value, unless
/// `rejectingDuplicateKeys` is set: then it is an error (RFC 8259 leaves duplicates' meaning to the
/// implementation, so a protocol that must not be read differently by two parsers refuses them).
public enum JSONParser {
    /// The default limit on nested arrays and objects.
    public static let defaultMaxDepth = 256

    /// Parses UTF-8 `bytes` as one JSON document. Contiguous collections are read in place; others are copied
    /// once.
    /// - Parameter rejectingDuplicateKeys: throw on a key repeated within one object instead of keeping the
    ///   last value.
    public static func parse(
        _ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth, rejectingDuplicateKeys: Bool = false
    ) throws(JSONParseError) -> JSONValue {
        if let result = bytes.withContiguousStorageIfAvailable({
            parse(buffer: $0, maxDepth: maxDepth, rejectingDuplicateKeys: rejectingDuplicateKeys)
        }) {
            return try result.get()
        }
        let copy = Array(bytes)
        return try copy.withUnsafeBufferPointer {
            parse(buffer: $0, maxDepth: maxDepth, rejectingDuplicateKeys: rejectingDuplicateKeys)
        }.get()
    }

    /// Parses the UTF-8 contents of `string` as one JSON document.
    public static func parse(_ string: String, maxDepth: Int = defaultMaxDepth) throws(JSONParseError) -> JSONValue {
        var contiguous = string
        return try contiguous.withUTF8 { parse(buffer: $0, maxDepth: maxDepth, rejectingDuplicateKeys: false) }.get()
    }

    private static func parse(
        buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int, rejectingDuplicateKeys: Bool
    ) -> Result<JSONValue, JSONParseError> {
        var reader = JSONReader(bytes: buffer, maxDepth: maxDepth, rejectingDuplicateKeys: rejectingDuplicateKeys)
        do {
            return .success(try reader.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}
