import Foundation

/// How a `VMHostClient` retries and backs off. The defaults are what CLIENT.md describes; apps rarely change them.
public struct VMHostClientConfiguration: Sendable {
    /// How many times a command (or a `GET`, a `DELETE`) is sent in all before its last failure is thrown, when
    /// the failure is one worth retrying: a connection error, `429`, `502`, `503`, `504`.
    public var requestAttempts: Int = 6
    /// The first retry's delay (before jitter) when the server gave no `Retry-After`; it doubles with each retry.
    public var initialRetryDelay: Duration = .milliseconds(250)
    /// The longest delay between two attempts, for commands and for reconnecting an event stream.
    public var maxRetryDelay: Duration = .seconds(30)
    /// The reconnection delay of an event stream until the server sends its own `retry:`.
    public var defaultStreamRetry: Duration = .seconds(3)

    /// Waits; tests replace it to record the delays instead of sleeping.
    package var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// A random number in the range, for jitter; tests make it fixed.
    package var random: @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }

    /// The defaults.
    public init() {}

    /// The delay before retry number `retry` (1 for the first) after a failure: `base` (the server's `retry:`, or
    /// ``initialRetryDelay``) doubled at each retry up to ``maxRetryDelay``, then jittered up by as much as half, so
    /// that the clients one restart dropped do not all come back at once, and none sooner than the server asked. A
    /// `retryAfter` from the server is waited for, plus up to a quarter more.
    func backoff(retry: Int, base: Duration, retryAfter: Duration?) -> Duration {
        if let retryAfter { return retryAfter * random(1...1.25) }
        let exponent = min(max(retry - 1, 0), 16)
        let grown = min(base * (1 << exponent), max(maxRetryDelay, base))
        return min(grown * random(1...1.5), max(maxRetryDelay, base))
    }
}
