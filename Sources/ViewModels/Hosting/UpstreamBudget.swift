import EventLoop

/// One session's budget of upstream loads (`upstreamCallsPerMinute`): a token bucket that holds a minute's
/// worth, starts full and refills evenly. Each search, page or photo load a command starts takes one token; a
/// command that would start one with the bucket empty is refused (`429 rate_limited`), and a debounced search
/// that finds it empty does not run (the search shows a `lastError` saying so). A person never meets the
/// budget; a loop does.
///
/// The session's view models share one (``HostedViewModel/upstreamBudget``); time comes from the session
/// store's clock (a test clock in tests, which move it instead of waiting).
@LoopActor
public final class UpstreamBudget {
    /// Tokens the bucket holds at most, and refills in a minute.
    public let perMinute: Int
    private let clock: LoopClock
    private var tokens: Double
    private var refilled: ContinuousClock.Instant

    /// A full bucket of `perMinute` tokens.
    public init(perMinute: Int, clock: LoopClock) {
        self.perMinute = max(1, perMinute)
        self.clock = clock
        tokens = Double(self.perMinute)
        refilled = clock.now
    }

    /// The tokens in the bucket now (fractions refill between whole tokens).
    public var available: Double {
        refill()
        return tokens
    }

    /// Whether a token is there to take.
    public var hasToken: Bool { available >= 1 }

    /// Takes a token; false (and nothing taken) when the bucket has less than one.
    @discardableResult
    public func take() -> Bool {
        refill()
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whole seconds until a token is there (at least 1): the `Retry-After` of a refusal.
    public var secondsUntilToken: Int {
        let missing = max(0, 1 - available)
        let seconds = missing * 60 / Double(perMinute)
        return max(1, Int(seconds.rounded(.up)))
    }

    private func refill() {
        let current = clock.now
        let elapsed = refilled.duration(to: current)
        guard elapsed > .zero else { return }
        let (seconds, attoseconds) = elapsed.components
        let elapsedSeconds = Double(seconds) + Double(attoseconds) / 1e18
        tokens = min(Double(perMinute), tokens + elapsedSeconds * Double(perMinute) / 60)
        refilled = current
    }

    /// Refuses a command that would start an upstream load when `budget` has no token for it
    /// (``CommandRejection/rateLimited(retryAfterSeconds:)``); nil: no budget.
    public static func check(_ budget: UpstreamBudget?) throws(CommandRejection) {
        guard let budget, !budget.hasToken else { return }
        throw .rateLimited(retryAfterSeconds: budget.secondsUntilToken)
    }
}
