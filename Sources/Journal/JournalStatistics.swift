/// Counters of the journal, for `/metrics`. They only grow, but for the gauges.
public struct JournalStatistics: Sendable, Equatable {
    /// Session writes acknowledged by Redis.
    public var writes = 0
    /// Calls of the write script (each writes the sessions of one flush, up to 64: ``writes`` over this is the
    /// batch size).
    public var writeCalls = 0
    /// Calls of the touch script (each refreshes the expiry of up to 64 sessions in use).
    public var touchCalls = 0
    /// Sessions whose expiry a touch call refreshed, or tried to (``touchedSessions`` over ``touchCalls`` is the
    /// batch size).
    public var touchedSessions = 0
    /// Session writes that failed (Redis unavailable, timed out, or answered an error).
    public var writeFailures = 0
    /// Sessions taken over from Redis by this process.
    public var takeovers = 0
    /// Sessions this process lost to another one (its write was fenced off) or released on drain.
    public var handovers = 0
    /// Records that could not be read (corrupt or foreign), treated as missing.
    public var corruptRecords = 0

    /// Creates zeroed counters.
    public init() {}
}
