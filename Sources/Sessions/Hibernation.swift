import EventLoop

/// How a journal's hibernation of a session ended (``SessionJournal/hibernate(_:idleFor:then:)``).
public enum HibernationOutcome: Sendable, Equatable {
    /// The session is durable in the journal and owned by no process: its memory is freed here.
    case released
    /// Another process took the session over meanwhile: it is freed here (as after a handover).
    case ownedElsewhere
    /// The journal no longer has the session (Redis lost it): it stays resident and is written in full.
    case stayResident
    /// Sent, but no answer (Redis failed or timed out): the session's ownership is uncertain, so it is neither
    /// served from memory nor dropped until a retry answers.
    case failed
}

/// What the store counts of hibernation, for `/metrics`.
public struct HibernationStatistics: Sendable, Equatable {
    /// Sessions this process hibernated.
    public var hibernations = 0
    /// Sessions this process hibernated and woke again (a request for one took it back from the journal).
    public var wakeups = 0
    /// Hibernations that failed (Redis did not answer); each is retried.
    public var failures = 0

    /// Creates zeroed counters.
    public init() {}
}

/// A session whose hibernation is in flight (or failed and waits for a retry): out of the store's map, so no
/// request uses it; lookups wait for the outcome.
@LoopActor
final class Hibernation {
    let session: Session
    /// Whether the journal's answer is awaited; false after a failure, until the retry.
    var inFlight = true
    /// How long the session had been idle when its hibernation started (the journal's expiry is what is left).
    let idle: Duration
    /// Whether the session was dropped without an outcome (expired, or shut down): its waiting lookups retry later.
    var isAbandoned = false
    /// Lookups waiting for the outcome.
    var waiters: [@LoopActor () -> Void] = []

    init(session: Session, idle: Duration) {
        self.session = session
        self.idle = idle
    }

    /// Resumes every waiting lookup.
    func resumeWaiters() {
        let waiting = waiters
        waiters.removeAll()
        for waiter in waiting { waiter() }
    }
}
