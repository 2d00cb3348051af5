import EventLoop

/// Hibernation: a resident session idle for ``SessionStoreConfiguration/hibernateAfter`` leaves memory and lives on
/// in the journal only; its next request takes it back through the takeover path (``sessionOrTakeOver(_:)``).
///
/// The race with a request: a session is taken out of ``sessions`` when its release is sent, so no request can use
/// it while Redis may already have released it. A request for it meanwhile waits for the release's answer, then
/// takes the session over from the journal like any other (the same state and versions). A failed release leaves
/// the session out of memory's map but kept (its ownership is uncertain, and it is durable): it is retried by the
/// next sweep or by the next request for it, and lookups answer "retry later" while Redis cannot answer.
extension SessionStore {
    /// Resident sessions due for hibernation now: no open stream, no work in flight, nothing the journal has not
    /// written yet, and no request for ``SessionStoreConfiguration/hibernateAfter``. Empty without a journal or
    /// with hibernation off.
    public func sessionsDueForHibernation() -> [Session] {
        guard journal != nil, let after = configuration.hibernateAfter else { return [] }
        let current = clock.now
        var due: [Session] = []
        for session in sessions.values where current - session.lastActivity >= after && session.isQuiescent {
            due.append(session)
        }
        return due
    }

    /// Number of sessions hibernated here that have not woken here or reached their idle timeout (an estimate:
    /// one woken on another node stays counted until its idle timeout would have passed).
    public var hibernatedCount: Int { hibernated.count }

    /// Number of sessions whose hibernation is in flight or waits for a retry.
    public var hibernatingCount: Int { hibernating.count }

    /// Hibernates every session due (``sessionsDueForHibernation()``), and retries the hibernations that failed.
    /// Run by the sweep timer.
    public func hibernateIdleSessions() {
        guard let journal else { return }
        let current = clock.now
        if current - lastHibernatedPurge >= .seconds(60) {
            lastHibernatedPurge = current
            hibernated.purge(now: current)
        }
        for entry in hibernating.values where !entry.inFlight {
            send(entry, to: journal)
        }
        for session in sessionsDueForHibernation() {
            let entry = Hibernation(session: session, idle: current - session.lastActivity)
            sessions[session.id] = nil
            hibernating[session.id] = entry
            if !send(entry, to: journal) {
                // Nothing was sent (not durable yet, or Redis unavailable): it stays resident, due again later.
                hibernating[session.id] = nil
                sessions[session.id] = session
            }
        }
    }

    /// Asks the journal to release `entry`'s session; whether it was sent.
    @discardableResult
    private func send(_ entry: Hibernation, to journal: any SessionJournal) -> Bool {
        entry.inFlight = true
        let sent = journal.hibernate(entry.session, idleFor: entry.idle) { [weak self] outcome in
            self?.finishHibernation(entry, outcome)
        }
        if !sent { entry.inFlight = false }
        return sent
    }

    private func finishHibernation(_ entry: Hibernation, _ outcome: HibernationOutcome) {
        let session = entry.session
        guard hibernating[session.id] === entry else { return }
        switch outcome {
        case .released, .ownedElsewhere:
            hibernating[session.id] = nil
            counted(session, -1)
            session.close(handedOver: outcome == .ownedElsewhere)
            if outcome == .released {
                hibernationStatistics.hibernations += 1
                let remaining = configuration.idleTimeout - entry.idle
                hibernated.insert(session.digest, subject: session.owner, until: clock.now + max(remaining, .zero))
            }
            onRemove?(session, outcome == .released ? "hibernated" : "handed-over")
        case .stayResident:
            hibernating[session.id] = nil
            sessions[session.id] = session
        case .failed:
            hibernationStatistics.failures += 1
            entry.inFlight = false
        }
        entry.resumeWaiters()
    }

    /// Waits while the session `id` is being hibernated; false when its hibernation failed and cannot be retried
    /// now (the caller answers "retry later").
    func waitForHibernation(_ id: String) async -> Bool {
        // NB: bounded: a retry that fails again answers "retry later" rather than looping while Redis fails.
        for _ in 0..<3 {
            guard let entry = hibernating[id] else { return true }
            if !entry.inFlight {
                guard let journal, send(entry, to: journal) else { return false }
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                entry.waiters.append { continuation.resume() }
            }
            if entry.isAbandoned { return false }
        }
        return hibernating[id] == nil
    }

    /// Drops failed hibernations idle past the timeout (the journal's keys expire by themselves).
    func expireHibernating(now current: ContinuousClock.Instant) {
        for entry in Array(hibernating.values)
        where !entry.inFlight && current - entry.session.lastActivity >= configuration.idleTimeout {
            hibernating[entry.session.id] = nil
            counted(entry.session, -1)
            entry.isAbandoned = true
            entry.session.close()
            onRemove?(entry.session, "expired")
            entry.resumeWaiters()
        }
    }

    /// Closes the sessions being hibernated (shutdown); their waiting lookups answer "retry later".
    func closeHibernating() {
        let entries = Array(hibernating.values)
        hibernating.removeAll()
        for entry in entries {
            entry.isAbandoned = true
            entry.session.close()
            onRemove?(entry.session, "shutdown")
            entry.resumeWaiters()
        }
    }
}

extension Session {
    /// Whether nothing of the session is in flight: no open stream, no view model at work (a load, a debounce),
    /// nothing the journal has not written yet (which includes answers waiting for it).
    var isQuiescent: Bool {
        guard openStreams == 0, openStreamCount == 0, !hasUnjournaledChanges, !isClosed else { return false }
        for slot in slots where slot.model.isBusy { return false }
        return true
    }
}
