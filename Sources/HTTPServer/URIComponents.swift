/// The path and query of a request target, split and percent-decoded without evhttp's strict URI parser
/// (which rejects, for example, unencoded spaces that real clients send).
package struct URIComponents: Sendable {
    /// The path as received, without the query.
    package var rawPath: Substring
    /// The path split on `/`, each segment percent-decoded (so `%2F` stays inside its segment).
    package var segments: [String]
    /// The raw query string, without `?`.
    package var rawQuery: Substring?

    /// Splits `target`; returns nil for a target that is not an origin-form path, has bad escapes, or is not
    /// UTF-8 (raw or percent-encoded, in the path or in the query: every part of the target follows one rule).
    package init?(target: String) {
        // NB: measured (callgrind): walking `String.UTF8View` indices cost ~10k instructions per request; one
        // pass over the contiguous bytes with integer offsets costs a fraction. Every request goes through here.
        var target = target
        target.makeContiguousUTF8()
        guard
            let parts = target.utf8.withContiguousStorageIfAvailable({ bytes in
                URIComponents.split(bytes)
            }) ?? nil
        else { return nil }
        let utf8 = target.utf8
        let pathEnd = utf8.index(utf8.startIndex, offsetBy: parts.pathEnd)
        rawPath = target[..<pathEnd]
        rawQuery = parts.query.map {
            target[
                utf8.index(
                    utf8.startIndex, offsetBy: $0.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: $0.upperBound)]
        }
        segments = parts.segments
    }

    /// The byte-level work of `init(target:)`: where the path ends, the query's byte range, and the decoded
    /// segments; nil for a target the initializer refuses.
    private static func split(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> (pathEnd: Int, query: Range<Int>?, segments: [String])? {
        let count = bytes.count
        guard count > 0, bytes[0] == UInt8(ascii: "/") else { return nil }
        // NB: the server makes `target` with `String(cString:)`, which turns bytes that are not UTF-8 into
        // U+FFFD (EF BF BD): a raw U+FFFD stands for such a byte, refused as the byte would be if sent
        // percent-encoded. (A U+FFFD sent percent-encoded, %EF%BF%BD, is valid UTF-8 and accepted.)
        var pathEnd = count
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte == 0xEF, index + 2 < count, bytes[index + 1] == 0xBF, bytes[index + 2] == 0xBD { return nil }
            if pathEnd == count, byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { pathEnd = index }
            index += 1
        }
        var query: Range<Int>?
        if pathEnd < count, bytes[pathEnd] == UInt8(ascii: "?") {
            var queryEnd = pathEnd + 1
            while queryEnd < count, bytes[queryEnd] != UInt8(ascii: "#") { queryEnd += 1 }
            // Decoded once here only to refuse bad escapes and invalid UTF-8; `queryParameters()` decodes pairs.
            guard
                percentDecode(UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)..<queryEnd]), plusIsSpace: false) != nil
            else { return nil }
            query = (pathEnd + 1)..<queryEnd
        }
        var segments: [String] = []
        segments.reserveCapacity(6)
        var segmentStart = 1
        index = 1
        while index <= pathEnd {
            if index == pathEnd || bytes[index] == UInt8(ascii: "/") {
                if segmentStart < index {
                    let part = UnsafeBufferPointer(rebasing: bytes[segmentStart..<index])
                    guard let decoded = percentDecode(part, plusIsSpace: false) else { return nil }
                    segments.append(decoded)
                }
                segmentStart = index + 1
            }
            index += 1
        }
        return (pathEnd, query, segments)
    }

    /// Query parameters; later duplicates win; empty pairs (`a=b&&c=d`) are skipped.
    package func queryParameters() -> [String: String] {
        guard let rawQuery else { return [:] }
        var result: [String: String] = [:]
        // NB: split on the bytes, not on `Character`s: `&` or `=` followed by a combining mark (`=\u{301}`) is
        // one grapheme, yet still a delimiter on the wire (found by the fuzzer, scripts/fuzz).
        let utf8 = rawQuery.utf8
        for pair in utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let valueStart = equals < pair.endIndex ? utf8.index(after: equals) : equals
            guard let key = URIComponents.percentDecode(rawQuery[pair.startIndex..<equals], plusIsSpace: true),
                !key.isEmpty
            else { continue }
            if let value = URIComponents.percentDecode(rawQuery[valueStart..<pair.endIndex], plusIsSpace: true) {
                result[key] = value
            }
        }
        return result
    }

    /// Decodes `%XX` escapes (and `+` in queries); nil for a malformed escape or invalid UTF-8.
    package static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var text = text
        return text.withUTF8 { percentDecode($0, plusIsSpace: plusIsSpace) }
    }

    /// The same on bytes, which must be valid UTF-8 (the bytes of a `String`).
    static func percentDecode(_ utf8: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> String? {
        var needsDecoding = false
        for byte in utf8 where byte == UInt8(ascii: "%") || (plusIsSpace && byte == UInt8(ascii: "+")) {
            needsDecoding = true
            break
        }
        // NB: the bytes come from a `String` (valid UTF-8): `String(decoding:)` skips the generic validating
        // initialiser, which cost ~900 instructions per segment (callgrind).
        guard needsDecoding else { return String(decoding: utf8, as: UTF8.self) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            switch byte {
            case UInt8(ascii: "%"):
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
                continue
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
            index += 1
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
