/// Why a Redis command failed.
public enum RedisError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not connected (not started, reconnecting, shut down) or the connection was lost before the reply.
    case unavailable
    /// No reply within ``RedisConfiguration/commandTimeout``; the client also drops the connection.
    case timeout
    /// Redis answered with an error reply (the message, e.g. `WRONGTYPE Operation against a key ...`).
    case server(String)
    /// A reply this client cannot represent.
    case protocolError(String)
    /// A command this client refuses to send (empty, or one that would break reply ordering).
    case invalidCommand(String)

    public var description: String {
        switch self {
        case .unavailable: "Redis is unavailable"
        case .timeout: "Redis did not answer in time"
        case .server(let message): "Redis error: \(message)"
        case .protocolError(let message): "Redis protocol error: \(message)"
        case .invalidCommand(let message): "invalid Redis command: \(message)"
        }
    }
}
