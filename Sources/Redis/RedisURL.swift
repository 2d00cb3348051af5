#if canImport(Glibc)
import Glibc
#endif

/// The parts of a `redis://[[user]:password@]host[:port][/database]` URL.
struct RedisURL: Equatable {
    var host: String
    var port: Int
    var database: Int
    /// The ACL user (`AUTH user password`); nil for the default user (`AUTH password`).
    var username: String?
    /// The password, percent-decoded; nil when the URL has no credentials.
    var password: String?

    init(parsing text: String) throws(RedisConfigurationError) {
        guard let schemeEnd = text.firstRange(of: "://") else { throw .unsupportedScheme(text) }
        let scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" else {
            if scheme == "rediss" { throw .unsupportedComponent("TLS (rediss://)") }
            throw .unsupportedScheme(scheme)
        }
        let rest = text[schemeEnd.upperBound...]
        if rest.contains("?") { throw .unsupportedComponent("a query string") }
        if rest.contains("#") { throw .unsupportedComponent("a fragment") }
        let location = rest.prefix { $0 != "/" }
        let path = rest[location.endIndex...]
        // NB: the credentials end at the last `@` of the authority (a password may hold an encoded or bare `@`);
        // no error below quotes them.
        let authority: Substring
        if let at = location.lastIndex(of: "@") {
            authority = location[location.index(after: at)...]
            let userInfo = location[..<at]
            guard let colon = userInfo.firstIndex(of: ":") else {
                throw .unsupportedComponent("a user without a password")
            }
            let user = try Self.percentDecoded(userInfo[..<colon])
            let secret = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            guard !secret.isEmpty else { throw .unsupportedComponent("an empty password") }
            username = user.isEmpty ? nil : user
            password = secret
        } else {
            authority = location
        }

        let hostPart: Substring
        let portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidHost(String(authority)) }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.isEmpty {
                portPart = nil
            } else if after.hasPrefix(":") {
                portPart = after.dropFirst()
            } else {
                throw .invalidHost(String(authority))
            }
        } else if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        } else {
            hostPart = authority
            portPart = nil
        }
        guard !hostPart.isEmpty else { throw .missingHost }
        guard Self.isSupportedHost(hostPart, bracketed: authority.hasPrefix("[")) else {
            throw .invalidHost(String(hostPart))
        }
        host = String(hostPart)

        if let portPart {
            guard let number = Self.decimal(portPart), (1...65_535).contains(number) else {
                throw .invalidPort(String(portPart))
            }
            port = number
        } else {
            port = 6379
        }

        let databasePart = path.dropFirst()
        if databasePart.isEmpty {
            database = 0
        } else {
            guard let number = Self.decimal(databasePart), number <= Int(Int32.max) else {
                throw .invalidDatabase(String(path))
            }
            database = number
        }
    }

    /// `text` with its `%XX` escapes decoded (RFC 3986 userinfo), as UTF-8.
    private static func percentDecoded(_ text: Substring) throws(RedisConfigurationError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .unsupportedComponent("a bad percent escape in its credentials")
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Digits only (no sign, no spaces), at most 10 of them.
    private static func decimal(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    private static func isSupportedHost(_ host: Substring, bracketed: Bool) -> Bool {
        var scratch = in6_addr()
        if bracketed { return inet_pton(AF_INET6, String(host), &scratch) == 1 }
        if host.lowercased() == "localhost" { return true }
        return inet_pton(AF_INET, String(host), &scratch) == 1
    }
}
