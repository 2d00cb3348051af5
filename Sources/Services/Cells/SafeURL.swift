/// Which URLs from an upstream may reach a client, where they land in an `href` or a `src`: `https` only, on the
/// hosts expected, with no character that could leave an attribute or hide another host (API.md, "What never
/// leaves the server": never `javascript:` or any other scheme).
public enum SafeURL {
    /// Flickr's own web hosts, for photo pages.
    public static let flickrPageHosts: Set<String> = [
        "www.flickr.com", "flickr.com", "m.flickr.com", "secure.flickr.com", "flic.kr",
    ]

    /// Whether `url` is `https://HOST[/…]` with a host in `hosts` (any host when nil, as for an operator's
    /// product API), no user information and no port other than the default (a host of `hosts`), and only
    /// printable ASCII that needs no escaping in an HTML attribute (no quotes, `<`, `>`, `\`, space).
    public static func isHTTPS(_ url: String, hosts: Set<String>? = nil) -> Bool {
        let bytes = url.utf8
        guard bytes.count <= 2048, bytes.allSatisfy(isAllowed) else { return false }
        let prefix = "https://"
        guard url.count > prefix.count, url.prefix(prefix.count).lowercased() == prefix else { return false }
        let rest = url.dropFirst(prefix.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        guard let hosts else { return true }
        return hosts.contains(authority.lowercased())
    }

    /// Whether `url` begins with `base` followed by `/` (the embedded fake's images: `http://127.0.0.1:PORT`),
    /// with the same characters as ``isHTTPS(_:hosts:)`` allows.
    public static func isUnder(_ base: String, _ url: String) -> Bool {
        !base.isEmpty && url.hasPrefix(base + "/") && url.utf8.count <= 2048 && url.utf8.allSatisfy(isAllowed)
    }

    /// Whether `text` can be one segment of a Flickr path (an id, server, secret or user id): letters, digits,
    /// `@` (user ids such as `12345678@N00`), `-` and `_`, 1 to 64 of them.
    public static func isPathSegment(_ text: String) -> Bool {
        let bytes = text.utf8
        return (1...64).contains(bytes.count)
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "@"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// RFC 3986's unreserved and reserved characters and `%`, less `'`, `[` and `]`.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "-._~:/?#@!$&()*+,;=%".utf8.contains(byte)
        }
    }
}
