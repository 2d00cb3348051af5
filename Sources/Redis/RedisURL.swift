#if canImport(Glibc)
import Glibc
#endif

/// The parts of a `redis://host[:port][/database]` URL.
struct RedisURL: Equatable {
    var host: String
    var port: Int
    var database: Int

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
        let authority = rest.prefix { $0 != "/" }
        let path = rest[authority.endIndex...]
        if authority.contains("@") { throw .unsupportedComponent("credentials") }

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
