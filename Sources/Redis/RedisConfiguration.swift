#if canImport(Glibc)
import Glibc
#endif

/// Where the Redis server is, who the client is to it, and how patient the client is with it.
///
/// Its description never shows the password.
public struct RedisConfiguration: Equatable, Sendable, CustomStringConvertible {
    /// An IPv4 or IPv6 address literal, or `localhost` (connected as 127.0.0.1).
    ///
    /// NB: hiredis resolves names with a blocking `getaddrinfo`, which would stall the event loop; resolve
    /// other names before building the configuration.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// The database selected (`SELECT`) on every connection; 0 needs no `SELECT`.
    public var database: Int
    /// The ACL user of `AUTH user password`; nil for the default user.
    public var username: String?
    /// The password sent (`AUTH`) as each connection's first command; nil sends no `AUTH`. Never logged.
    public var password: String?
    /// How long a command may wait for its reply before it fails with ``RedisError/timeout``.
    public var commandTimeout: Duration
    /// How long a connection attempt (TCP connect and `SELECT`) may take before it is given up.
    public var connectTimeout: Duration
    /// The first delay before reconnecting; it doubles after each failed attempt.
    public var reconnectBackoffMinimum: Duration
    /// The longest delay between reconnection attempts.
    public var reconnectBackoffMaximum: Duration

    /// Creates a configuration.
    public init(
        host: String = "127.0.0.1", port: Int = 6379, database: Int = 0,
        commandTimeout: Duration = .seconds(1), connectTimeout: Duration = .seconds(1),
        reconnectBackoffMinimum: Duration = .milliseconds(50), reconnectBackoffMaximum: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.commandTimeout = commandTimeout
        self.connectTimeout = connectTimeout
        self.reconnectBackoffMinimum = reconnectBackoffMinimum
        self.reconnectBackoffMaximum = reconnectBackoffMaximum
    }

    /// Parses `redis://[[user]:password@]host[:port][/database]`; the timeouts and backoff keep their defaults.
    ///
    /// The host is an IP literal (`[::1]` for IPv6) or `localhost`; the port defaults to 6379 and the
    /// database to 0. `redis://:password@host` authenticates as the default user (`requirepass`),
    /// `redis://user:password@host` as an ACL user; both percent-decoded.
    /// - Throws: ``RedisConfigurationError`` naming the part that is wrong (never quoting the credentials). A user
    ///   without a password, query strings and `rediss://` (TLS) are refused rather than ignored.
    public init(url: String) throws(RedisConfigurationError) {
        self.init()
        let address = try RedisURL(parsing: url)
        host = address.host
        port = address.port
        database = address.database
        username = address.username
        password = address.password
    }

    /// `host:port/database`, with the user if any; the password as `***`.
    public var description: String {
        let credentials = password == nil ? "" : "\(username ?? ""):***@"
        return "redis://\(credentials)\(host):\(port)/\(database)"
    }

    /// The delay before reconnection attempt number `failures` (1 after the first failure).
    func reconnectDelay(afterFailures failures: Int) -> Duration {
        // NB: at least a millisecond, so a zero minimum cannot turn reconnecting into a busy loop.
        var delay = max(reconnectBackoffMinimum, .milliseconds(1))
        var remaining = max(failures - 1, 0)
        while remaining > 0, delay < reconnectBackoffMaximum {
            delay *= 2
            remaining -= 1
        }
        return min(delay, reconnectBackoffMaximum)
    }
}

/// Why a `redis://` URL was refused.
public enum RedisConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The URL does not start with `redis://` (the scheme found, or the whole text).
    case unsupportedScheme(String)
    /// Nothing between `redis://` and the port or path.
    case missingHost
    /// The host is not an IP literal or `localhost`.
    case invalidHost(String)
    /// The port is not a number in 1...65535.
    case invalidPort(String)
    /// The path is not `/` followed by a database number.
    case invalidDatabase(String)
    /// A part the client does not support: bad credentials, query or fragment.
    case unsupportedComponent(String)

    public var description: String {
        switch self {
        case .unsupportedScheme(let scheme):
            "unsupported Redis URL scheme '\(scheme)': expected redis://[[user]:password@]host[:port][/database]"
        case .missingHost: "the Redis URL has no host: expected redis://[[user]:password@]host[:port][/database]"
        case .invalidHost(let host):
            "invalid Redis host '\(host)': use an IP address or localhost (names would block the event loop)"
        case .invalidPort(let port): "invalid Redis port '\(port)': expected a number from 1 to 65535"
        case .invalidDatabase(let path): "invalid Redis database '\(path)': expected /N with N a number >= 0"
        case .unsupportedComponent(let part): "the Redis URL has \(part), which is not supported"
        }
    }
}
