import EventLoop
import EventStreams
import JSON
import ViewModels

/// One client's view models, each with its state channel, in registration order.
///
/// The session never knows about HTTP routes; routes reach its view models through ``slot(_:)``.
@LoopActor
public final class Session: VersionHolder {
    /// The session id (the capability to use it).
    public let id: String
    /// What names the session where its id must not appear (Redis keys, logs): ``SessionID/digest(_:)``.
    public let digest: String
    /// The hosted view models in registration order (the order of the session resource and of resume ids).
    public let slots: [ViewModelSlot]
    /// When a request last touched the session.
    public internal(set) var lastActivity: ContinuousClock.Instant
    /// Whether the session was deleted or expired.
    public private(set) var isClosed = false
    /// Whom the session belongs to with authentication on: the hex SHA-256 of the token's `sub` that created it
    /// (journaled with it); nil for a session created without authentication.
    public let owner: String?
    /// The session's `Idempotency-Key`s and their answers.
    public let idempotencyKeys = IdempotencyKeys()
    /// The journal keeping this session beyond the process, if any.
    ///
    /// NB: strong: the journal outlives its sessions anyway (it holds the store that holds them). A weak
    /// reference would give the journal a side table, which every retain of it then goes through (an extra
    /// cache line per retain on the command path).
    public private(set) var journal: (any SessionJournal)?
    /// Idempotency answers the journal has not written yet, oldest first.
    public var unjournaledAnswers: [(key: String, fingerprint: [UInt8], answer: IdempotentAnswer)] = []
    /// The journal's keys of this session, encoded as it sends them (kept by the journal: encoded at its first
    /// write here, copied into every write after).
    public var journalKeys: [UInt8] = []
    /// The journal's epoch of this session: its view models' keys in Redis are named by it, and a takeover
    /// raises it (1 for a session created here; a restored one gets the takeover's).
    public var journalEpoch = 1
    /// Whether the journal is writing this session now.
    public var isBeingJournaled = false
    /// Whether the journal has a write of this session queued for its next batch.
    public var isQueuedForJournal = false
    /// The slots that published a version since they were last found written and committed (bit `i`: `slots[i]`;
    /// every slot at first): a superset of those with versions the journal has not written or not committed, and
    /// the only ones ``hasUnjournaledChanges`` and the journal's updates look at (``slotsWithChanges``).
    /// NB: a command changes one view model; looking at every slot's channel missed the cache on the others' at
    /// each look (~10 last-level misses a command with 1,000 sessions: docs/performance.md, issue 26's thirteenth
    /// stop).
    @usableFromInline var changedSlots = UInt64.max
    private var durableWaiters = DurableWaiters()
    /// Open event streams of this session, each counted once (a multiplexed stream too) until it closes.
    public var openStreams: Int { streamCount.value }
    /// NB: a box the streams' close callbacks hold: a stream may close after its session went, and a weak
    /// reference to the session would give it a side table (see ``journal``).
    private let streamCount = StreamCount()

    private final class StreamCount {
        var value = 0
    }

    /// The session's budget of upstream loads, shared by its view models (nil: unlimited).
    public private(set) var upstreamBudget: UpstreamBudget?

    /// Gives the session's view models `budget` to draw their upstream loads from.
    public func useUpstreamBudget(_ budget: UpstreamBudget) {
        upstreamBudget = budget
        for slot in slots { slot.model.upstreamBudget = budget }
    }

    /// Counts `sink` among the session's open streams until it closes.
    public func countStream(_ sink: any EventSink) {
        let count = streamCount
        count.value += 1
        let previous = sink.onClose
        sink.onClose = {
            count.value -= 1
            previous?()
        }
    }

    /// Creates a session hosting one view model of each registration.
    public init(
        id: String, viewModels: [ViewModelRegistration], now: ContinuousClock.Instant,
        replay: ReplayLimits = ReplayLimits(), owner: String? = nil
    ) {
        self.id = id
        digest = SessionID.digest(id)
        self.owner = owner
        self.lastActivity = now
        slots = viewModels.map { ViewModelSlot.make($0, replay: replay) }
    }

    /// Continues a session from its journal record; a view model the record lacks (one added since) starts
    /// fresh.
    /// - Throws: ``SnapshotError`` when a view model's snapshot cannot be restored.
    public init(
        record: SessionRecord, viewModels: [ViewModelRegistration], now: ContinuousClock.Instant,
        replay: ReplayLimits = ReplayLimits()
    ) throws(SnapshotError) {
        id = record.id
        digest = SessionID.digest(record.id)
        owner = record.owner
        journalEpoch = record.journalEpoch
        lastActivity = now
        var slots: [ViewModelSlot] = []
        for registration in viewModels {
            if let entry = record.viewModels[registration.name] {
                slots.append(
                    try ViewModelSlot.restore(entry, registration: registration, replay: replay))
            } else {
                slots.append(ViewModelSlot.make(registration, replay: replay))
            }
        }
        self.slots = slots
        for (key, fingerprint, answer) in record.idempotency {
            idempotencyKeys.restore(key, fingerprint: fingerprint, answer: answer)
        }
    }

    /// Connects the session to `journal`: versions are held until it has them, answers are journaled.
    func attach(_ journal: any SessionJournal) {
        self.journal = journal
        // NB: unowned, not weak: a weak reference gives the session a side table, which every retain of it
        // then goes through. The session takes both back when it goes (deinit).
        for (index, slot) in slots.enumerated() {
            slot.holderBit = SlotSelection.bit(of: index)
            slot.versionHolder = self
        }
        idempotencyKeys.onAnswer = { [unowned self] key, fingerprint, answer in
            guard let journal = self.journal else { return }
            self.unjournaledAnswers.append((key, fingerprint, answer))
            journal.sessionChanged(self)
        }
    }

    /// A slot (`bit`) publishes a version: answers whether it waits for the journal, which learns of the change.
    func slotPublishes(_ bit: UInt64) -> Bool {
        changedSlots |= bit
        guard let journal else { return false }
        journal.sessionChanged(self)
        return journal.holdsVersions
    }

    isolated deinit {
        for slot in slots { slot.versionHolder = nil }
        idempotencyKeys.onAnswer = nil
    }

    /// Publishes what restored view models changed relative to the journal (work restarted, say).
    func publishRestoredChanges() {
        for slot in slots { slot.publishIfChanged() }
    }

    /// Whether anything of the session is not yet in the journal.
    /// NB: also drops from ``changedSlots`` each slot it finds written and committed (the set only tells where to
    /// look, so keeping it small is all this changes).
    public var hasUnjournaledChanges: Bool {
        if isBeingJournaled || isQueuedForJournal || !unjournaledAnswers.isEmpty { return true }
        guard slots.count <= UInt64.bitWidth else {
            // NB: a loop, not `contains(where:)`: a closure here would check its executor on every call.
            for slot in slots where slot.channel.latestVersion != slot.channel.version { return true }
            return false
        }
        var bits = changedSlots & SlotSelection.mask(ofAll: slots.count)
        while bits != 0 {
            let index = bits.trailingZeroBitCount
            bits &= bits &- 1
            let slot = slots[index]
            let latest = slot.channel.latestVersion
            if latest != slot.channel.version { return true }
            if slot.journaledVersion >= latest { changedSlots &= ~SlotSelection.bit(of: index) }
        }
        return false
    }

    /// The slots that may have versions the journal has not written or not committed (``changedSlots``), in
    /// order; every other slot has none.
    @inlinable public var slotsWithChanges: SlotSelection { SlotSelection(slots, mask: changedSlots) }

    /// Returns once everything changed so far is in the journal (or the journal gave up on it): what a
    /// response shows must survive a crash.
    public func waitUntilDurable() async {
        guard journal?.holdsVersions == true, hasUnjournaledChanges, !isClosed else { return }
        await withCheckedContinuation { continuation in durableWaiters.append { continuation.resume() } }
    }

    /// Runs `action` once everything changed so far is in the journal (or the journal gave up on it): at
    /// once when it already is, else after the journal write that makes it so. The same as
    /// ``waitUntilDurable()`` without a task (a command's answer waits this way on every command).
    public func whenDurable(_ action: @escaping @LoopActor () -> Void) {
        guard journal?.holdsVersions == true, hasUnjournaledChanges, !isClosed else { return action() }
        durableWaiters.append(action)
    }

    /// Called by the journal after each write of this session: releases the waiters once nothing is left.
    public func journalWriteEnded() {
        guard !durableWaiters.isEmpty, !hasUnjournaledChanges || journal?.holdsVersions != true else { return }
        runDurableWaiters()
    }

    /// The view model named `name`, if the session hosts one.
    public func slot(_ name: String) -> ViewModelSlot? {
        // NB: a loop, not `first(where:)`: a closure here would check its executor on every call.
        for slot in slots where slot.name == name { return slot }
        return nil
    }

    /// Every channel of the session.
    public var channels: [StateChannel] { slots.map(\.channel) }

    /// Open event streams across all channels (a multiplexed stream counts once per channel).
    public var openStreamCount: Int { slots.reduce(0) { $0 + $1.channel.subscriberCount } }

    /// Attaches a stream carrying every view model of the session (`GET /v1/sessions/{id}/events`).
    /// - Parameter resumeFrom: a `Last-Event-ID` of the form `search:5,products:3,photo:2`.
    public func subscribeAll(_ sink: any EventSink, format: StreamFormat, resumeFrom: String?) {
        SessionStream.start(sink, channels: channels, format: format, resumeFrom: resumeFrom)
    }

    /// The session resource: `{"id", "search": SearchState, "products": ProductListState, …}`.
    public var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        for slot in slots { object[slot.name] = slot.channel.state }
        return .object(object)
    }

    /// Whether the session was closed because another process took it over, or closed with changes the journal
    /// never got (they were dropped: a request waiting for them answers that it should be retried).
    public private(set) var wasHandedOver = false

    /// Cancels all in-flight work and ends every stream.
    ///
    /// Versions still held for the journal are dropped, never shown: they are not durable, and another process
    /// may continue the session from the journal (after a drain, which released it) and reuse their numbers.
    /// - Parameter handedOver: another process took the session over.
    public func close(handedOver: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        let abandoning = handedOver || journal?.holdsVersions == true
        let dropsVersions = abandoning && slots.contains { $0.channel.latestVersion != $0.channel.version }
        wasHandedOver = handedOver || dropsVersions
        for slot in slots { slot.close(abandoning: abandoning) }
        idempotencyKeys.removeAll()
        runDurableWaiters()
    }

    /// Runs every durable waiter, in order. NB: taken out first: a waiter may wait again, or end another write.
    private func runDurableWaiters() {
        let (first, others) = durableWaiters.takeAll()
        first?()
        for waiter in others { waiter() }
    }
}

/// Who waits for a session's changes to be durable, in the order they came.
///
/// NB: the first apart from the others: a command's answer waits this way on every write, and an array of
/// closures cost ~2k instructions per command to fill and empty (its elements destroyed through generic value
/// witnesses).
@LoopActor
private struct DurableWaiters {
    private var first: (@LoopActor () -> Void)?
    private var others: [@LoopActor () -> Void] = []

    var isEmpty: Bool { first == nil }

    mutating func append(_ waiter: @escaping @LoopActor () -> Void) {
        if first == nil { first = waiter } else { others.append(waiter) }
    }

    /// Removes every waiter and hands them over, the first apart.
    mutating func takeAll() -> (first: (@LoopActor () -> Void)?, others: [@LoopActor () -> Void]) {
        let taken = (first, others)
        first = nil
        if !others.isEmpty { others = [] }
        return taken
    }
}
