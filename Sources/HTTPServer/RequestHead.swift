import CLibevent

#if canImport(Glibc)
import Glibc
#endif

/// Checks of a request head that evhttp parsed but does not judge: framing it accepts though a proxy may read
/// it otherwise, the target's form, and the body's media type.
enum RequestHead {
    /// Whether the request announced a body (`Content-Length` other than 0, or any `Transfer-Encoding`).
    static func hasBody(_ raw: OpaquePointer) -> Bool {
        guard let input = evhttp_request_get_input_headers(raw) else { return false }
        if evhttp_find_header(input, "Transfer-Encoding") != nil { return true }
        guard let length = evhttp_find_header(input, "Content-Length") else { return false }
        return String(cString: length) != "0"
    }

    /// The origin form (`/path?query`) of a request target; an absolute-form target (`http://host/path`,
    /// which RFC 9112 §3.2.2 says a server must accept) loses its scheme and authority.
    static func originForm(_ target: String) -> String {
        guard target.utf8.first != UInt8(ascii: "/") else { return target }
        let utf8 = target.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return target }
        let scheme = String(decoding: utf8[..<colon], as: UTF8.self).lowercased()
        let rest = utf8[utf8.index(after: colon)...]
        guard scheme == "http" || scheme == "https", rest.starts(with: "//".utf8) else { return target }
        let authority = rest.dropFirst(2)
        guard let end = authority.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
            return "/"
        }
        let tail = String(decoding: utf8[end...], as: UTF8.self)
        return utf8[end] == UInt8(ascii: "/") ? tail : "/" + tail
    }

    /// Whether a `Content-Type` is JSON (`application/json` or `application/*+json`, any parameters).
    static func isJSON(_ contentType: String) -> Bool {
        // NB: the common case without splitting and lower-casing (docs/performance.md, "Receipts").
        if contentType == "application/json" { return true }
        let trimmed = (contentType.httpFieldParts(separatedBy: ";", maxSplits: 1).first ?? "").lowercased()
        return trimmed == "application/json" || (trimmed.hasPrefix("application/") && trimmed.hasSuffix("+json"))
    }
}
