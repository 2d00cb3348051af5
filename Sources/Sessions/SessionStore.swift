import EventLoop
import ViewModels

/// Limits of the session store.
public struct SessionStoreConfiguration: Sendable {
    /// A session expires after this long without a request and without an open stream.
    public var idleTimeout: Duration
    /// At most this many sessions at once; creating more answers `429 too_many_sessions`.
    public var maxSessions: Int
    /// How often expiry is checked.
    public var sweepInterval: Duration
    /// What each view model keeps for resume.
    public var replay: ReplayLimits
    /// The bytes of idempotency answers each session keeps (``IdempotencyKeys/maxBytes``).
    public var idempotencyBytes = IdempotencyKeys.defaultMaxBytes
    /// Each session's budget of upstream loads per minute (``UpstreamBudget``); nil: unlimited.
    public var upstreamCallsPerMinute: Int?
    /// With a journal, a session idle this long (no request, no open stream, no work in flight) leaves memory
    /// and lives on in the journal only (``SessionStore/hibernateIdleSessions()``); nil: never.
    public var hibernateAfter: Duration?

    /// Creates a configuration.
    public init(
        idleTimeout: Duration = .seconds(1800), maxSessions: Int = 100_000, sweepInterval: Duration = .seconds(5),
        replay: ReplayLimits = ReplayLimits()
    ) {
        self.idleTimeout = idleTimeout
        self.maxSessions = maxSessions
        self.sweepInterval = sweepInterval
        self.replay = replay
    }
}

/// The store refused a new session because the limit is reached.
public struct SessionLimitReached: Error, Sendable {
    /// The configured limit.
    public var limit: Int
}

/// All sessions of this node, in memory, with idle expiry.
@LoopActor
public final class SessionStore {
    /// The limits in effect.
    public let configuration: SessionStoreConfiguration
    /// The resident sessions.
    var sessions: [String: Session] = [:]
    /// The view models every session hosts, in order.
    public let viewModels: [ViewModelRegistration]
    let clock: LoopClock
    private var sweeper: LoopTimer?
    /// Called when a session is removed, with the reason (`deleted`, `expired`, `shutdown`, `handed-over`,
    /// `hibernated`).
    public var onRemove: (@LoopActor (Session, String) -> Void)?
    /// Called when a session was taken over from the journal.
    public var onTakeOver: (@LoopActor (Session) -> Void)?
    /// Called when a journal record could not be restored (it is then treated as missing).
    public var onRestoreFailure: (@LoopActor (String, SnapshotError) -> Void)?
    /// The journal sessions outlive the process in; nil keeps them in memory only.
    public var journal: (any SessionJournal)?
    /// Ends the ids of sessions created here (`id.tag`), so a proxy routes them to this node; nil or an
    /// invalid tag (``SessionID/isValidNodeTag(_:)``) creates untagged ids.
    public var nodeTag: String?
    /// Takeovers in progress, so concurrent requests for one session load it once.
    private var loading: [String: Task<TakeOver, Never>] = [:]
    /// Sessions held here by ``Session/owner`` (`maxSessionsPerSubject`).
    private var ownedCounts: [String: Int] = [:]
    /// Sessions whose hibernation is in flight or failed (out of ``sessions``: lookups wait for the outcome).
    var hibernating: [String: Hibernation] = [:]
    /// Fingerprints of the sessions hibernated here and not woken here or expired (``HibernatedSessions``).
    var hibernated: HibernatedSessions
    /// When ``hibernated`` was last purged of expired sessions.
    var lastHibernatedPurge: ContinuousClock.Instant
    /// Hibernations and wake-ups so far.
    public internal(set) var hibernationStatistics = HibernationStatistics()
    /// Called after each wake-up of a session hibernated here, with how long the takeover took.
    public var onWake: (@LoopActor (Session, Duration) -> Void)?

    /// How a lookup that may take a session over ended.
    public enum TakeOver: Sendable {
        /// The session, in memory now.
        case found(Session)
        /// No such session.
        case notFound
        /// Another live process holds it, or the journal cannot answer now: try again shortly.
        case retryLater
    }

    /// Creates a store.
    /// - Parameters:
    ///   - viewModels: the view models of every session, in order.
    ///   - clock: the clock of activity and expiry (a test clock in tests).
    public init(
        configuration: SessionStoreConfiguration, viewModels: [ViewModelRegistration],
        clock: LoopClock = LoopClock()
    ) {
        self.configuration = configuration
        self.viewModels = viewModels
        self.clock = clock
        let start = clock.now
        hibernated = HibernatedSessions(epoch: start)
        lastHibernatedPurge = start
    }

    /// Starts the periodic expiry check.
    public func startExpiry() {
        let timer = LoopTimer(clock: clock, repeats: true) { [weak self] in
            self?.expireIdleSessions()
            self?.hibernateIdleSessions()
        }
        timer.schedule(after: configuration.sweepInterval)
        sweeper = timer
    }

    /// Number of live sessions.
    public var count: Int { sessions.count }

    /// Total open event streams across sessions.
    public var openStreamCount: Int { sessions.values.reduce(0) { $0 + $1.openStreamCount } }

    /// Creates a session with a fresh CSPRNG id (tagged with ``nodeTag``), bound to `owner` when given.
    /// - Throws: ``SessionLimitReached`` at the limit.
    public func create(owner: String? = nil) throws(SessionLimitReached) -> Session {
        guard sessions.count < configuration.maxSessions else {
            throw SessionLimitReached(limit: configuration.maxSessions)
        }
        let session = Session(
            id: SessionID.generate(nodeTag: nodeTag), viewModels: viewModels, now: clock.now,
            replay: configuration.replay, owner: owner
        )
        applyLimits(to: session)
        sessions[session.id] = session
        counted(session, 1)
        if let journal {
            session.attach(journal)
            journal.sessionCreated(session)
        }
        return session
    }

    /// The session with this id from memory, or taken over from the journal (its work in flight restarted).
    public func sessionOrTakeOver(_ id: String) async -> TakeOver {
        // NB: a session being hibernated is taken back from the journal once its release is answered, never
        // served from memory meanwhile: the release may already have happened in Redis.
        guard await waitForHibernation(id) else { return .retryLater }
        if let session = session(id) { return .found(session) }
        guard let journal, SessionID.isWellFormed(id) else { return .notFound }
        if let running = loading[id] { return await running.value }
        let task = Task { @LoopActor [weak self] () -> TakeOver in
            let started = self?.clock.now
            let result = await journal.load(id)
            guard let self, let started else { return .retryLater }
            let outcome = self.finishTakeOver(id, result, journal: journal)
            if case .found(let session) = outcome, self.hibernated.remove(session.digest) {
                self.hibernationStatistics.wakeups += 1
                self.onWake?(session, self.clock.now - started)
            }
            return outcome
        }
        loading[id] = task
        let result = await task.value
        loading[id] = nil
        return result
    }

    private func finishTakeOver(_ id: String, _ result: JournalLoad, journal: any SessionJournal) -> TakeOver {
        switch result {
        case .notFound: return .notFound
        case .heldElsewhere, .unavailable: return .retryLater
        case .found(let record):
            if let existing = sessions[id] { return .found(existing) }
            guard sessions.count < configuration.maxSessions else { return .retryLater }
            let session: Session
            do throws(SnapshotError) {
                session = try Session(
                    record: record, viewModels: viewModels, now: clock.now, replay: configuration.replay
                )
                applyLimits(to: session)
            } catch {
                onRestoreFailure?(id, error)
                return .notFound
            }
            sessions[id] = session
            counted(session, 1)
            session.attach(journal)
            session.publishRestoredChanges()
            onTakeOver?(session)
            return .found(session)
        }
    }

    /// Forgets a session another process took over: its streams end so their clients reconnect to the owner.
    public func handOver(_ id: String) {
        guard let session = sessions.removeValue(forKey: id) else { return }
        counted(session, -1)
        session.close(handedOver: true)
        onRemove?(session, "handed-over")
    }

    /// Every session held here.
    public var all: [Session] { Array(sessions.values) }

    /// The live session with this id, marking it active unless `touching` is false; nil for unknown, deleted
    /// or expired ids.
    public func session(_ id: String, touching: Bool = true) -> Session? {
        guard let session = sessions[id] else { return nil }
        if touching { session.lastActivity = clock.now }
        return session
    }

    /// The live session with this id when it belongs to `owner` (any session when `owner` is nil), marked active;
    /// nil otherwise, so that another owner's session reads exactly like a missing one.
    public func session(_ id: String, ownedBy owner: String?) -> Session? {
        guard let session = sessions[id], owner == nil || session.owner == owner else { return nil }
        session.lastActivity = clock.now
        return session
    }

    /// Sessions held here that belong to `owner`, those hibernated here and not yet woken or expired included.
    public func count(ownedBy owner: String) -> Int {
        (ownedCounts[owner] ?? 0) + hibernated.count(ownedBy: owner)
    }

    func counted(_ session: Session, _ change: Int) {
        guard let owner = session.owner else { return }
        let count = (ownedCounts[owner] ?? 0) + change
        ownedCounts[owner] = count > 0 ? count : nil
    }

    /// Deletes a session: cancels its work and ends its streams. Returns false for an unknown id.
    @discardableResult
    public func delete(_ id: String) -> Bool {
        guard let session = sessions.removeValue(forKey: id) else { return false }
        counted(session, -1)
        session.close()
        journal?.sessionRemoved(session)
        onRemove?(session, "deleted")
        return true
    }

    /// Removes sessions idle for longer than the timeout; a session with an open stream is never idle.
    public func expireIdleSessions() {
        let current = clock.now
        expireHibernating(now: current)
        for session in Array(sessions.values) {
            if session.openStreamCount > 0 {
                session.lastActivity = current
            } else if current - session.lastActivity >= configuration.idleTimeout {
                sessions[session.id] = nil
                counted(session, -1)
                session.close()
                journal?.sessionRemoved(session)
                onRemove?(session, "expired")
            }
        }
    }

    /// Closes every session (shutdown). The journal keeps them: another process continues them.
    public func closeAll() {
        sweeper?.cancel()
        for session in Array(sessions.values) {
            session.close()
            onRemove?(session, "shutdown")
        }
        sessions.removeAll()
        ownedCounts.removeAll()
        closeHibernating()
    }
}

extension SessionStore {
    /// The per-session limits of the configuration: the bytes of idempotency answers, the upstream budget.
    func applyLimits(to session: Session) {
        session.idempotencyKeys.maxBytes = configuration.idempotencyBytes
        if let perMinute = configuration.upstreamCallsPerMinute {
            session.useUpstreamBudget(UpstreamBudget(perMinute: perMinute, clock: clock))
        }
    }
}
