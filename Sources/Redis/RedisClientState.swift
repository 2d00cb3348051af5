/// Where a ``RedisClient`` is in its life.
public enum RedisClientState: Equatable, Sendable {
    /// Created, not started.
    case idle
    /// Connecting (and selecting the database); commands sent now wait for the connection.
    case connecting
    /// Connected: commands go out at once.
    case ready
    /// The connection failed or was lost; a reconnect is scheduled. Commands fail fast.
    case disconnected
    /// Shut down for good. Commands fail fast.
    case shutdown
}

/// Counters a ``RedisClient`` keeps for metrics. They only grow.
public struct RedisClientStatistics: Equatable, Sendable {
    /// Commands handed to the connection.
    public var commandsSent = 0
    /// Commands that ended in an error of any kind (including ``RedisError/server(_:)``).
    public var commandsFailed = 0
    /// Commands that failed with ``RedisError/timeout``.
    public var timeouts = 0
    /// Connection attempts after the first one (each retry after a failed or lost connection).
    public var reconnects = 0

    /// All zero.
    public init() {}
}
