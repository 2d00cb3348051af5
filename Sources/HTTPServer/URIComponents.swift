#if canImport(Glibc)
import Glibc
#endif

/// The path and query of a request target, split and percent-decoded without evhttp's strict URI parser
/// (which rejects, for example, unencoded spaces that real clients send).
package struct URIComponents: Sendable {
    /// The path as received, without the query; nil when split from evhttp's C string in place (its first
    /// ``pathLength`` bytes are the path: the request makes the string only when asked, for an error or a log).
    package var rawPath: Substring?
    /// The length of the path in bytes.
    package var pathLength: Int
    /// The path split on `/`, each segment percent-decoded (so `%2F` stays inside its segment).
    package var segments: [String]
    /// The raw query string, without `?`.
    package var rawQuery: Substring?
    /// Whether the path is in canonical form: no empty segment (`//`, a trailing `/` after a segment) and no
    /// percent-encoded unreserved character (`%73` for `s`), which a proxy's rules may read as another path.
    package var isCanonical: Bool

    /// Splits `target`; returns nil for a target that is not an origin-form path, has bad escapes, or is not
    /// UTF-8 (raw or percent-encoded, in the path or in the query: every part of the target follows one rule).
    package init?(target: String) {
        // NB: one pass over the contiguous bytes with integer offsets, not `String.UTF8View` indices, which cost
        // many times more (docs/performance.md, "Receipts"). Every request goes through here.
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
        pathLength = parts.pathEnd
        rawQuery = parts.query.map {
            target[
                utf8.index(
                    utf8.startIndex, offsetBy: $0.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: $0.upperBound)]
        }
        segments = parts.segments
        isCanonical = parts.isCanonical
    }

    /// Splits the request target evhttp parsed (a C string), as `init(target:)` does the `String` that
    /// `String(cString:)` and ``RequestHead/originForm(_:)`` make of it.
    ///
    /// NB: the common target (origin form, ASCII) is split in place: the path, the query and the segments are
    /// the only strings made (cheaper than going through one `String` of the whole target). Anything else takes
    /// the `String` way, so both accept and refuse exactly the same.
    init?(requestTarget: UnsafePointer<CChar>) {
        let bytes = UnsafeRawBufferPointer(start: requestTarget, count: strlen(requestTarget))
            .bindMemory(to: UInt8.self)
        guard bytes.first == UInt8(ascii: "/"), Self.isASCII(bytes) else {
            self.init(target: RequestHead.originForm(String(cString: requestTarget)))
            return
        }
        guard let parts = Self.split(bytes) else { return nil }
        self.init(
            rawPath: nil, pathLength: parts.pathEnd,
            rawQuery: parts.query.map {
                Substring(String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self))
            },
            segments: parts.segments, isCanonical: parts.isCanonical
        )
    }

    private init(rawPath: Substring?, pathLength: Int, rawQuery: Substring?, segments: [String], isCanonical: Bool) {
        self.rawPath = rawPath
        self.pathLength = pathLength
        self.rawQuery = rawQuery
        self.segments = segments
        self.isCanonical = isCanonical
    }

    /// Whether every byte is ASCII (eight at a time).
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= bytes.count {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if bytes[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    /// The offset of the first `byte` in `bytes[start..<end]`, or `end` (memchr: the byte loops this replaced
    /// were a third of a request's URI work).
    private static func firstIndex(
        of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int
    ) -> Int {
        guard start < end, let base = bytes.baseAddress, let found = memchr(base + start, Int32(byte), end - start)
        else { return end }
        return UnsafeRawPointer(base).distance(to: found)
    }

    /// The byte-level work of `init(target:)`: where the path ends, the query's byte range, and the decoded
    /// segments; nil for a target the initializer refuses.
    private static func split(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) -> (pathEnd: Int, query: Range<Int>?, segments: [String], isCanonical: Bool)? {
        let count = bytes.count
        guard count > 0, bytes[0] == UInt8(ascii: "/") else { return nil }
        // NB: the server makes `target` with `String(cString:)`, which turns bytes that are not UTF-8 into
        // U+FFFD (EF BF BD): a raw U+FFFD stands for such a byte, refused as the byte would be if sent
        // percent-encoded. (A U+FFFD sent percent-encoded, %EF%BF%BD, is valid UTF-8 and accepted.)
        var search = 0
        while true {
            let lead = firstIndex(of: 0xEF, in: bytes, from: search, to: count)
            guard lead < count else { break }
            if lead + 2 < count, bytes[lead + 1] == 0xBF, bytes[lead + 2] == 0xBD { return nil }
            search = lead + 1
        }
        let pathEnd = min(
            firstIndex(of: UInt8(ascii: "?"), in: bytes, from: 0, to: count),
            firstIndex(of: UInt8(ascii: "#"), in: bytes, from: 0, to: count))
        var query: Range<Int>?
        if pathEnd < count, bytes[pathEnd] == UInt8(ascii: "?") {
            let queryEnd = firstIndex(of: UInt8(ascii: "#"), in: bytes, from: pathEnd + 1, to: count)
            // Decoded once here only to refuse bad escapes and invalid UTF-8; `queryParameters()` decodes pairs.
            guard
                percentDecode(UnsafeBufferPointer(rebasing: bytes[(pathEnd + 1)..<queryEnd]), plusIsSpace: false) != nil
            else { return nil }
            query = (pathEnd + 1)..<queryEnd
        }
        var segments: [String] = []
        segments.reserveCapacity(6)
        var segmentStart = 1
        // NB: `/` alone is canonical; a trailing `/` after a segment is an empty last segment.
        var isCanonical = pathEnd == 1 || bytes[pathEnd - 1] != UInt8(ascii: "/")
        while segmentStart < pathEnd {
            let segmentEnd = firstIndex(of: UInt8(ascii: "/"), in: bytes, from: segmentStart, to: pathEnd)
            if segmentStart < segmentEnd {
                let part = UnsafeBufferPointer(rebasing: bytes[segmentStart..<segmentEnd])
                guard let decoded = percentDecode(part, plusIsSpace: false) else { return nil }
                if isCanonical && decoded.utf8.count != part.count && encodesUnreserved(part) { isCanonical = false }
                segments.append(decoded)
            } else {
                isCanonical = false
            }
            segmentStart = segmentEnd + 1
        }
        return (pathEnd, query, segments, isCanonical)
    }

    /// Whether `part` (a segment whose escapes decode) percent-encodes an unreserved character (RFC 3986:
    /// letters, digits, `-`, `.`, `_`, `~`), which has one canonical form: itself.
    private static func encodesUnreserved(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = firstIndex(of: UInt8(ascii: "%"), in: part, from: 0, to: part.count)
        while index + 2 < part.count {
            if let high = hexValue(part[index + 1]), let low = hexValue(part[index + 2]) {
                let byte = high << 4 | low
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    return true
                default: break
                }
            }
            index = firstIndex(of: UInt8(ascii: "%"), in: part, from: index + 1, to: part.count)
        }
        return false
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
        var needsDecoding = firstIndex(of: UInt8(ascii: "%"), in: utf8, from: 0, to: utf8.count) < utf8.count
        if plusIsSpace, !needsDecoding {
            needsDecoding = firstIndex(of: UInt8(ascii: "+"), in: utf8, from: 0, to: utf8.count) < utf8.count
        }
        // NB: the bytes come from a `String` (valid UTF-8): `String(decoding:)` skips the generic validating
        // initialiser, a cost per segment (docs/performance.md, "Receipts").
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
