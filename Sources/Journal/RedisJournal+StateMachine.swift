extension RedisJournal {
    /// The journal's batching and fencing decisions, as a value with no I/O: which sessions are dirty, when a
    /// flush is due, which sessions a flush writes and how, and what each write's outcome means.
    /// ``RedisJournal`` sends the Redis commands, runs the timers and commits on the channels; it switches on
    /// what this machine answers.
    ///
    /// - **Batching.** A change marks its session dirty; the first mark of a batch schedules a flush at the end
    ///   of this loop turn (``FlushSchedule/endOfTurn``), or on the next turn when it comes while a flush is
    ///   writing (``FlushSchedule/nextTurn``: no turn that never ends).
    /// - **One write in flight per session.** A flush skips closed sessions, leaves a session whose write is in
    ///   flight queued (written again when that write ends), and writes the others in full when they need it
    ///   (created here, Redis was away, or Redis lost them), else as an update.
    /// - **Fencing.** A write refused because another process owns the session hands it over: it is forgotten.
    ///
    /// Keyed by `ID` (the session object's identity in the journal: no string hashed per command). `Member` is
    /// what the journal writes (a ``Session``; anything in tests): the machine
    /// hands it back and never looks into it. NB: a session's own flags (`isBeingJournaled`, `isClosed`,
    /// `hasUnjournaledChanges`) stay on the session, which reads them on every command; the journal passes
    /// them in where a decision depends on them.
    struct StateMachine<ID: Hashable, Member> {
        /// Sessions changed since the last flush, in the order they were marked, each once.
        /// NB: an array, not a dictionary: the caller knows whether a session is queued already (a flag on the
        /// session), so a mark costs no hash, and a flush's batch no growing table.
        private(set) var dirty: [(id: ID, member: Member)] = []
        /// Sessions whose next write is a full one (created here, Redis was away, or Redis lost them), by id.
        private(set) var needsFullWrite: [ID: Member] = [:]
        /// Sessions created here whose first write has not ended: nobody else can own them (a fresh id) and none of
        /// their keys exist, so that write (``WriteMode/create``) needs no fencing. NB: a subset of
        /// ``needsFullWrite``.
        private(set) var uncreated: Set<ID> = []
        /// Since when the oldest dirty session has waited (nil when none).
        private(set) var dirtySince: ContinuousClock.Instant?
        /// Whether a flush is writing its batch.
        private(set) var isFlushing = false
        /// Whether the journal stopped (released its sessions, or shut down): nothing is marked any more.
        private(set) var isStopped = false

        /// When a flush is to run after a mark.
        enum FlushSchedule: Equatable {
            /// The journal stopped: the session is not queued, nothing is scheduled.
            case ignored
            /// Queued; nothing to schedule (a flush is already scheduled).
            case none
            /// At the end of this turn of the loop, after the events ready in it.
            case endOfTurn
            /// On the next turn (a mark made while a flush is writing).
            case nextTurn
        }

        /// How a session is written.
        enum WriteMode: Equatable {
            /// The versions since the last acknowledged write.
            case update
            /// Everything: the session as a whole, its replay ring and idempotency answers included.
            case full
            /// The first write of a session created here (its fresh id is nobody else's; none of its keys exist):
            /// everything, as ``full``, and the journal may write it without checking the owner.
            case create
        }

        /// What a flush does with one session of its batch.
        enum FlushAction: Equatable {
            /// Nothing: the session closed.
            case skip
            /// Nothing now: its write in flight ends first, then it is written again (it stays queued).
            case waitForWriteInFlight
            /// Write it.
            case write(WriteMode)
        }

        /// What Redis answered a write.
        enum WriteOutcome: Equatable {
            /// Written (the script answered 1).
            case written
            /// Another process owns the session (0).
            case ownedElsewhere
            /// Redis has no such session (-1: expired, or flushed).
            case missing
            /// A reply the script never gives.
            case unexpected
            /// The command failed (connection lost, server error).
            case failed
        }

        /// What the journal does after a write ended.
        enum WriteEndAction: Equatable {
            /// Commit the written versions on their channels.
            case commit
            /// Hand the session over (end its streams): it is forgotten here.
            case handOver
            /// Mark it dirty again: its next write is a full one.
            case writeInFull
            /// Serve it from memory (commit everything held): it is written in full once Redis is back.
            case degrade
        }

        /// What a hibernation sweep may do with a session.
        enum HibernationAction: Equatable {
            /// Leave it resident (the journal stopped, or it has changes not yet written).
            case refuse
            /// Leave it resident and mark it dirty: it is not durable until written in full.
            case writeInFullFirst
            /// Release it in Redis.
            case release
        }

        /// What an expiry refresh (`touch`) learned of a session.
        enum TouchOutcome: Equatable {
            /// Refreshed, or nothing to learn (a failed refresh is tried again at the next).
            case refreshed
            /// Another process owns the session (0).
            case ownedElsewhere
            /// Redis has no such session (-1).
            case missing
        }

        /// What the journal does after an expiry refresh.
        enum TouchAction: Equatable {
            /// Nothing.
            case none
            /// Hand the session over: it is forgotten here.
            case handOver
            /// Mark it dirty again: its next write is a full one.
            case writeInFull
        }

        // MARK: Batching

        /// Session `id` changed at `now`: it is dirty. Answers when to flush, given whether one is scheduled.
        /// - Parameter isQueued: whether the session is queued already (marked since the last flush, or waiting
        ///   for its write in flight, which writes it again when it ends): then it is not added twice.
        /// NB: `now` is read only for the first mark of a batch (an autoclosure: no clock read per command).
        mutating func markDirty(
            _ id: ID, _ member: Member, isQueued: Bool = false,
            at now: @autoclosure () -> ContinuousClock.Instant, flushScheduled: Bool
        ) -> FlushSchedule {
            guard !isStopped else { return .ignored }
            guard !isQueued else { return .none }
            if dirty.isEmpty { dirtySince = now() }
            dirty.append((id, member))
            guard !flushScheduled else { return .none }
            return isFlushing ? .nextTurn : .endOfTurn
        }

        /// Session `id` was created here: its first write is a full one, with nothing to fence
        /// (``WriteMode/create``). Answers as ``markDirty(_:_:at:flushScheduled:)``.
        mutating func created(
            _ id: ID, _ member: Member, isQueued: Bool = false,
            at now: @autoclosure () -> ContinuousClock.Instant, flushScheduled: Bool
        ) -> FlushSchedule {
            needsFullWrite[id] = member
            uncreated.insert(id)
            return markDirty(id, member, isQueued: isQueued, at: now(), flushScheduled: flushScheduled)
        }

        /// Session `id` closed here (removed, or handed over): nothing of it is written any more.
        mutating func forget(_ id: ID) {
            // NB: a walk over this turn's marks (few): sessions close far less often than they change.
            if let index = dirty.firstIndex(where: { $0.id == id }) { dirty.remove(at: index) }
            needsFullWrite[id] = nil
            uncreated.remove(id)
        }

        /// A flush begins: hands out its batch (every dirty session) and empties it.
        mutating func beginFlush() -> [(id: ID, member: Member)] {
            let batch = dirty
            dirty = []
            dirty.reserveCapacity(batch.count)
            dirtySince = nil
            isFlushing = true
            return batch
        }

        /// What the flush does with session `id` of its batch, closed or not, with a write in flight or not.
        /// NB: `mutating` though it changes nothing: called on the journal's stored machine, a non-mutating call
        /// copied the whole machine first (its array, dictionary and set retained and released: ~300 instructions
        /// a command); a mutating one works in place.
        mutating func flushAction(for id: ID, isClosed: Bool, isBeingWritten: Bool) -> FlushAction {
            if isClosed { return .skip }
            if isBeingWritten { return .waitForWriteInFlight }
            // NB: no lookup while no session needs a full write (the steady state): no hash per command.
            guard !needsFullWrite.isEmpty, needsFullWrite[id] != nil else { return .write(.update) }
            return .write(uncreated.contains(id) ? .create : .full)
        }

        /// The flush wrote its batch.
        mutating func endFlush() {
            isFlushing = false
        }

        // MARK: Outcomes

        /// The write of session `id`, in `mode`, ended with `outcome`. A creation that failed may have been made
        /// or not: the session's next write is a full one, fenced.
        mutating func writeEnded(
            _ id: ID, _ member: Member, mode: WriteMode, outcome: WriteOutcome
        ) -> WriteEndAction {
            if mode == .create { uncreated.remove(id) }
            switch outcome {
            case .written:
                if mode != .update { needsFullWrite[id] = nil }
                return .commit
            case .ownedElsewhere:
                forget(id)
                return .handOver
            case .missing:
                needsFullWrite[id] = member
                return .writeInFull
            case .unexpected, .failed:
                needsFullWrite[id] = member
                return .degrade
            }
        }

        /// A write of session `id` could not be made (Redis unavailable): it is served from memory and written
        /// in full once Redis is back. NB: counted as a failed write (the metric operators watch).
        mutating func writeImpossible(_ id: ID, _ member: Member) -> WriteEndAction {
            needsFullWrite[id] = member
            return .degrade
        }

        /// Whether a session whose write ended is written again: when it changed meanwhile and is open.
        static func writesAgain(hasUnjournaledChanges: Bool, isClosed: Bool) -> Bool {
            hasUnjournaledChanges && !isClosed
        }

        /// Redis is back: the sessions to mark dirty (each is then written in full), open or not (the journal
        /// skips closed ones).
        func catchUp() -> [Member] {
            Array(needsFullWrite.values)
        }

        /// An expiry refresh of session `id` learned `outcome`. A session whose write is in flight is not handed
        /// over here: that write's own outcome decides.
        mutating func touched(
            _ id: ID, _ member: Member, outcome: TouchOutcome, isBeingWritten: Bool
        ) -> TouchAction {
            switch outcome {
            case .refreshed:
                return .none
            case .ownedElsewhere:
                guard !isBeingWritten else { return .none }
                forget(id)
                return .handOver
            case .missing:
                needsFullWrite[id] = member
                return .writeInFull
            }
        }

        // MARK: Hibernation

        /// Whether session `id` may be released for hibernation: only once all of it is in Redis.
        func hibernation(of id: ID, hasUnjournaledChanges: Bool) -> HibernationAction {
            if isStopped { return .refuse }
            if needsFullWrite[id] != nil { return .writeInFullFirst }
            if hasUnjournaledChanges || dirty.contains(where: { $0.id == id }) { return .refuse }
            return .release
        }

        /// A hibernation found Redis lost session `id`: it stays resident and is written in full.
        mutating func hibernationFoundMissing(_ id: ID, _ member: Member) {
            needsFullWrite[id] = member
        }

        /// The journal stopped: nothing is marked from now on.
        mutating func stop() {
            isStopped = true
        }
    }
}
