import Bytes
import EventLoop
import JSON
import Logging
import Redis
import Sessions
import ViewModels

/// The session journal in Redis: every version is written before any reader sees it, a session outlives
/// its process, and a process that lost a session can never write it again.
///
/// - **Batching.** Changes mark their session dirty; at the end of the loop turn one script call and one
///   transaction write every dirty session (``JournalWriteBatch``: up to 64 sessions, more pipelined on the one
///   connection): a turn costs one round trip however many sessions and subscribers it touched. At most one
///   write per session is in flight; what changes meanwhile goes in the next one.
/// - **Commit after acknowledgement.** A session's held versions are committed (sent to streams, shown by
///   `GET`) once Redis acknowledged the write that holds them; command responses wait for the same.
/// - **Fencing.** A write through the script first checks the session's `owner` is this process; a takeover
///   makes the taking process the owner in the same atomic step as reading the session, and raises its epoch,
///   renaming its view models' lists and deltas. An ordinary update (the fast path, `appendFast`) is plain
///   commands on those epoch-named keys, so it finds them gone once the session was taken (or, making a view
///   model's first list, reads the owner in the same transaction); it then writes in full through the script.
///   A new session's first write needs no fence (`appendCreation`: its id is fresh). A process whose write is
///   refused hands the session over: it forgets it and ends its streams, so their clients reconnect (through
///   the proxy) to the owner.
/// - **Unavailable Redis.** While the client is not connected, ``holdsVersions`` is false: versions go out
///   at once, from memory, and every session changed meanwhile is marked for a full write, made as soon as
///   Redis is back (its replay ring included).
///
/// Every decision above (what is dirty, when to flush, update or full write, what a reply means) is taken by
/// ``StateMachine``, a value; this class sends the commands, runs the timers and commits on the channels.
@LoopActor
public final class RedisJournal: SessionJournal {
    /// This process's owner token (`node/incarnation`): unique per process start.
    public let owner: String
    /// ``owner``'s bytes (what the session hash's `owner` holds).
    private let ownerBytes: [UInt8]
    /// Counters for `/metrics`.
    public private(set) var statistics = JournalStatistics()
    /// Called with the round-trip time of every acknowledged write call (one per batch of sessions).
    public var onWriteLatency: (@LoopActor (Duration) -> Void)?
    /// The client (its statistics and state are part of the journal's health).
    public let client: RedisClient

    private let store: SessionStore
    let ttlMilliseconds: Int
    private let replayCapacity: Int
    private let keyCapacity: Int
    /// The bytes of idempotency answers kept per session (`idempotencyBytesPerSession`).
    private let keyBytesCapacity: Int
    let logger: Logger
    var names: [String] { store.viewModels.map(\.name) }

    /// Which sessions are dirty, when to flush, how each is written and what each outcome means.
    var writes = Writes()
    /// The journal's decisions, keyed by the session objects' identity.
    typealias Writes = StateMachine<ObjectIdentifier, Session>
    // NB: no weak reference to the journal anywhere: one would give it a side table, which every retain of it
    // then goes through. Its timers are its own (they go with it); its commands and tasks hold it until they
    // end; the client's state callback is taken back when it goes (deinit).
    private lazy var flushTimer = LoopTimer { [unowned self] in self.flush() }
    private lazy var touchTimer = LoopTimer(clock: client.clock, repeats: true) { [unowned self] in
        self.touchActiveSessions()
    }
    private let previousOnStateChange: (@LoopActor (RedisClientState) -> Void)?
    private var lastTouch: ContinuousClock.Instant
    private var scriptHashes: [JournalScript: String] = [:]
    /// The writer each view model's extras are written with before they are compared with those last written
    /// (kept: one buffer for all writes).
    private var extrasWriter = JSONTextWriter()
    /// The buffer a checkpoint is built in before it is compressed (kept: one buffer for all writes).
    private var checkpointScratch: [UInt8] = []
    /// `PX` and the keys' expiry, encoded once: a delta key set by a fast write gets the session's whole idle
    /// timeout.
    private let encodedExpiry: [UInt8]
    /// Compresses checkpoints and large patches, inflates them on a takeover.
    private let compressor = JournalCompressor()
    /// When a view model's write is a checkpoint: what a reader applies, and what Redis holds beyond the
    /// compressed checkpoint, stays small.
    private let logPolicy: JournalLogPolicy

    /// Creates the journal of `store` and attaches it (sessions created from now on are journaled).
    /// - Parameters:
    ///   - node: the node id; the owner token adds a random incarnation to it.
    ///   - idleTimeout: the sessions' idle timeout, which the Redis keys' expiry follows.
    ///   - checkpointPatches: a view model gets a new checkpoint after this many patches since the last.
    ///   - checkpointBytes: …or after this many bytes of patches and extras since the last.
    ///   NB: by default what the replay ring keeps (``ReplayLimits``): its list keeps the ring anyway, so a log as
    ///   long costs Redis no more, and each checkpoint is a script call (~4 µs of Redis a view model, ~0.5 µs a
    ///   command at 32 patches, `INFO commandstats`).
    public init(
        client: RedisClient, store: SessionStore, node: String, idleTimeout: Duration, logger: Logger,
        keyCapacity: Int = 256, keyBytesCapacity: Int = IdempotencyKeys.defaultMaxBytes,
        checkpointPatches: Int = 64, checkpointBytes: Int = 8192
    ) {
        logPolicy = JournalLogPolicy(checkpointPatches: checkpointPatches, checkpointBytes: checkpointBytes)
        self.client = client
        lastTouch = client.clock.now
        self.store = store
        var generator = SystemRandomNumberGenerator()
        owner = "\(node)/\(String(generator.next() as UInt64, radix: 36))"
        ownerBytes = Array(owner.utf8)
        let (seconds, attoseconds) = idleTimeout.components
        ttlMilliseconds = max(1000, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
        encodedExpiry = RedisCommand([Array("PX".utf8), Array(String(ttlMilliseconds).utf8)]).encodedArguments
        replayCapacity = store.configuration.replay.patches
        self.keyCapacity = keyCapacity
        self.keyBytesCapacity = keyBytesCapacity
        self.logger = logger
        let previous = client.onStateChange
        previousOnStateChange = previous
        store.journal = self
        client.onStateChange = { [unowned self] state in
            previous?(state)
            self.clientStateChanged(state)
        }
    }

    isolated deinit {
        client.onStateChange = previousOnStateChange
    }

    /// Starts the client and the expiry refresh.
    public func start() {
        client.start()
        let interval = min(Duration.seconds(30), Duration.milliseconds(ttlMilliseconds) / 4)
        touchTimer.schedule(after: max(interval, .milliseconds(250)))
    }

    /// Whether the journal is reachable.
    public var isAvailable: Bool { client.isAvailable }

    /// How long the oldest change not yet written has waited (zero when none).
    public var lag: Duration {
        guard let dirtySince = writes.dirtySince else { return .zero }
        return client.clock.now - dirtySince
    }

    // MARK: SessionJournal

    /// NB: still true once the sessions are released (a drain): what changes then is never written, so it must
    /// stay held, never shown, and be dropped when the sessions close; the next owner runs that work again.
    public var holdsVersions: Bool { client.isAvailable }

    public func sessionChanged(_ session: Session) {
        markDirty(session)
    }

    public func sessionCreated(_ session: Session) {
        let schedule = writes.created(
            ObjectIdentifier(session), session, isQueued: session.isQueuedForJournal, at: client.clock.now,
            flushScheduled: flushTimer.isScheduled)
        queued(session, schedule)
    }

    public func sessionRemoved(_ session: Session) {
        writes.forget(ObjectIdentifier(session))
        let keys = JournalKeys(digest: session.digest).all(viewModels: names, epoch: session.journalEpoch)
        Task {
            do {
                _ = try await self.evaluate(.delete, keys: keys, arguments: [Array(self.owner.utf8)])
            } catch {
                // NB: the keys still expire with their TTL.
                self.logger.debug(
                    "journal delete failed", metadata: ["session": "\(session.digest)", "error": "\(error)"])
            }
        }
    }

    public func load(_ id: String) async -> JournalLoad {
        guard client.isAvailable else { return .unavailable }
        let digest = SessionID.digest(id)
        let keys = JournalKeys(digest: digest)
        let legacy = JournalKeys.legacy(id: id)
        let current = [keys.hash, keys.keyOrder, keys.keys] + names.map(keys.replay)
        let reply: RedisReply
        do {
            reply = try await evaluate(
                .takeOver, keys: current + [legacy.hash, legacy.keyOrder, legacy.keys] + names.map(legacy.replay),
                arguments: [Array(owner.utf8), Array(String(current.count).utf8)] + names.map { Array($0.utf8) }
            )
        } catch {
            logger.warning("journal takeover failed", metadata: ["session": "\(digest)", "error": "\(error)"])
            return .unavailable
        }
        if reply == .integer(0) { return .notFound }
        do {
            let record = try JournalRecordCoding.record(
                id: id, reply: reply, viewModelNames: names, compressor: compressor)
            statistics.takeovers += 1
            return .found(record)
        } catch {
            statistics.corruptRecords += 1
            logger.error(
                "journal record unreadable: treated as missing",
                metadata: ["session": "\(digest)", "error": "\(error)"])
            return .notFound
        }
    }

    // MARK: Draining

    /// Writes everything pending, then gives up every session held here, so any process may take them over
    /// at once (a drain). Returns when Redis answered or failed.
    /// - Parameter limit: how long to wait for the sessions to be durable. Sessions that keep changing (a
    ///   steady stream of commands) may never be all written at one instant; what is still held after the
    ///   limit is dropped when the sessions close, never shown, and the next owner runs that work again.
    public func releaseAll(limit: Duration = .seconds(3)) async {
        flush()
        await waitUntilDurable(store.all, limit: limit)
        writes.stop()
        // NB: sent back to back, so they are pipelined; then each reply is awaited in order.
        let token = Array(owner.utf8)
        let releases = store.all.map { session in
            Task { @LoopActor [self] () -> Bool in
                let reply = try? await evaluate(
                    .release, keys: [JournalKeys(digest: session.digest).hash], arguments: [token])
                return reply == .integer(1)
            }
        }
        for release in releases where await release.value { statistics.handovers += 1 }
    }

    /// Returns once every session of `sessions` is durable, or after `limit`.
    private func waitUntilDurable(_ sessions: [Session], limit: Duration) async {
        let wait = DrainWait()
        // NB: real time, not the application's clock: a drain must end even in a test that never moves it.
        let timer = LoopTimer { wait.finish() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            wait.continuation = continuation
            timer.schedule(after: limit)
            Task { @LoopActor in
                // NB: outlives a timed-out wait until the sessions close (closing releases their waiters).
                for session in sessions { await session.waitUntilDurable() }
                wait.finish()
            }
        }
        timer.cancel()
    }

    /// Stops the timers and the client.
    public func shutdown() {
        writes.stop()
        flushTimer.cancel()
        touchTimer.cancel()
        client.shutdown()
    }

    // MARK: Writing

    func markDirty(_ session: Session) {
        queued(
            session,
            writes.markDirty(
                ObjectIdentifier(session), session, isQueued: session.isQueuedForJournal, at: client.clock.now,
                flushScheduled: flushTimer.isScheduled))
    }

    /// Acts on a mark of `session`: queues it, and schedules the flush the machine asked for.
    private func queued(_ session: Session, _ schedule: Writes.FlushSchedule) {
        if schedule == .ignored { return }
        session.isQueuedForJournal = true
        switch schedule {
        case .ignored, .none: break
        // NB: the batch is written at the end of this turn of the loop (after the events ready in it), not on
        // the next turn: one turn less between a command and its durability.
        case .endOfTurn: flushTimer.fireSoon()
        case .nextTurn: flushTimer.schedule(after: .zero)
        }
    }

    /// Writes every dirty session not already being written: one script call for up to
    /// ``JournalWriteBatch/maximumSessions`` of them (calls pipelined when there are more).
    func flush() {
        let sessions = writes.beginFlush()
        defer {
            writes.endFlush()
            // NB: written to the socket now, not on the write event of the loop's next turn.
            client.writeNow()
        }
        // NB: one batch, appended to in place (a copy of it per session would copy its buffers each time).
        var batch = JournalWriteBatch()
        for (_, session) in sessions {
            session.isQueuedForJournal = false
            switch writes.flushAction(
                for: ObjectIdentifier(session), isClosed: session.isClosed, isBeingWritten: session.isBeingJournaled)
            {
            case .skip:
                continue
            case .waitForWriteInFlight:
                // NB: written again when the write in flight ends (it checks for changes made meanwhile).
                session.isQueuedForJournal = true
            case .write(let mode):
                guard client.isAvailable else {
                    // NB: a write that cannot be made is a failed write (the metric operators watch).
                    statistics.writeFailures += 1
                    act(on: writes.writeImpossible(ObjectIdentifier(session), session), for: session)
                    continue
                }
                append(session, mode: mode, to: &batch)
                if batch.isFull {
                    send(batch)
                    batch = JournalWriteBatch()
                }
            }
        }
        if !batch.isEmpty { send(batch) }
    }

    /// Appends the write of `session` to `batch`: an ordinary update to its transaction (the fast path) when
    /// it can take it, else the session's keys and arguments to its script call (mode, subject, the view
    /// models changed since the last write, or every one when `full`; the idempotency answers not yet
    /// written); and what the write carries. A session with nothing to write is not added.
    private func append(
        _ session: Session, mode: Writes.WriteMode, to batch: inout JournalWriteBatch
    ) {
        if mode == .create, appendCreation(session, to: &batch) { return }
        let full = mode != .update
        // NB: loops over the session's candidate slots (a few), each time with ``carries(_:full:)``, rather than an
        // array of the slots to write (an allocation per write); and loops, not `filter`: a closure here checks its
        // executor on every call. `journaledVersion` (the version last sent) changes only after the last loop.
        let candidates = Self.candidates(of: session, full: full)
        var changed = 0
        var carried: ViewModelSlot?
        for slot in candidates where Self.carries(slot, full: full) {
            changed += 1
            carried = slot
        }
        if !full, changed == 1, session.unjournaledAnswers.isEmpty, let carried,
            appendFast(session, carried, to: &batch)
        {
            return
        }
        let answers = full ? session.idempotencyKeys.answered : session.unjournaledAnswers
        if !session.unjournaledAnswers.isEmpty { session.unjournaledAnswers.removeAll() }
        guard changed > 0 || !answers.isEmpty || full else {
            session.journalWriteEnded()
            return
        }
        // NB: encoded straight into the call: no array or string per argument, whose formatting by hiredis
        // cost more than the rest of a write (docs/performance.md, "Receipts").
        // NB: the keys encoded once per session (and view model), then copied: encoding them took ~3k
        // instructions a write.
        // NB: the key order and keys lists only when there are answers to write: two keys fewer for Redis to take
        // in per write.
        if answers.isEmpty {
            batch.keys.append(encoded: JournalKeys.splitFirst(writeKeys(of: session)).first, count: 1)
        } else {
            batch.keys.append(encoded: writeKeys(of: session), count: 3)
        }
        for slot in candidates where Self.carries(slot, full: full) {
            batch.keys.append(encoded: viewModelKeys(of: slot, in: session), count: 2)
        }
        if full {
            batch.arguments.append("full")
            batch.arguments.append(session.owner ?? "")
            batch.arguments.append(session.journalEpoch)
        } else {
            batch.arguments.append("update")
        }
        batch.arguments.append(changed)
        batch.arguments.append(answers.count)
        for slot in candidates where Self.carries(slot, full: full) {
            appendViewModel(slot, previous: slot.journaledVersion, full: full, to: &batch.arguments)
        }
        for (key, fingerprint, answer) in answers {
            batch.arguments.append(key)
            batch.arguments.append(
                JournalRecordCoding.answer(
                    fingerprint: fingerprint, answer: answer, compressing: full, compressor: compressor))
        }
        session.isBeingJournaled = true
        // NB: what the write carries, kept on the slots (one write per session is in flight): its reply commits
        // each slot through its `journaledVersion`.
        for slot in candidates where Self.carries(slot, full: full) {
            slot.journaledVersion = slot.channel.latestVersion
        }
        batch.add(JournalWriteBatch.Member(session: session, mode: mode))
    }

    /// The extras of `slot`'s view model as a write sends them whole (a checkpoint's, the script's), with their
    /// revision noted on the slot.
    private func writtenExtras(of slot: ViewModelSlot) -> [UInt8] {
        extrasWriter.removeAll()
        slot.model.writeExtras(to: &extrasWriter)
        slot.journalExtrasRevision = slot.model.extrasRevision
        return extrasWriter.bytes
    }

    /// The encoded keys of `session`'s hash, key order and keys (encoded once per session).
    private func writeKeys(of session: Session) -> [UInt8] {
        if session.journalKeys.isEmpty { session.journalKeys = JournalKeys.encodedWriteKeys(of: session.digest) }
        return session.journalKeys
    }

    /// The encoded keys of `slot`'s replay list and delta under the session's epoch (encoded once per slot).
    private func viewModelKeys(of slot: ViewModelSlot, in session: Session) -> [UInt8] {
        if slot.journalKeys.isEmpty {
            slot.journalKeys = JournalKeys.encodedViewModelKeys(
                of: session.digest, viewModel: slot.name, epoch: session.journalEpoch)
        }
        return slot.journalKeys
    }

    /// The slots a write of `session` may carry: every one when `full`, else those that published since they were
    /// last found written (``Session/slotsWithChanges``), so that the others' channels are not looked at (each a
    /// cache miss when the session has many: docs/performance.md, issue 26's thirteenth stop).
    private static func candidates(of session: Session, full: Bool) -> SlotSelection {
        full ? SlotSelection(all: session.slots) : session.slotsWithChanges
    }

    /// Whether a write carries `slot`: every view model when `full`, else those with versions since the last
    /// write (`journaledVersion`).
    private static func carries(_ slot: ViewModelSlot, full: Bool) -> Bool {
        full || slot.channel.latestVersion > slot.journaledVersion
    }

    /// The fast path: an ordinary update of one view model (new patches, no checkpoint due, no idempotency
    /// answers) as plain commands in the batch's transaction: `RPUSHX list …` (and `LTRIM` once the list holds a
    /// quarter more than it keeps, or ~1 KB of patches more: ``JournalLogPolicy``), and, only when the view
    /// model's extras changed since they were last written, `SET delta e… PX ttl`. Most commands change the state
    /// alone: one `RPUSHX`.
    /// No script: the keys are named by the session's epoch, so a process that lost the session writes nothing
    /// (`RPUSHX` pushes only onto a list that exists; the takeover renamed it; a `SET` behind a push that pushed
    /// nothing lands under the old epoch's name, which nobody reads, and expires) and learns it from the reply; it
    /// then writes in full through the script, which checks the owner. False (nothing appended, nothing changed)
    /// when the write is not one: the script takes it.
    /// A list not known to exist (a view model's first patches) is made by `RPUSH` and `PEXPIRE`, with `HGET` of
    /// the owner in the same transaction: the fence read at the instant of the write. Another owner (or none)
    /// there means the list was made under an epoch nobody reads (it expires): the write counts as missing, and the
    /// full write next finds the other owner.
    /// NB: what Redis spent on such a write through the script was ~5 to 7 µs, mostly Lua's (its arguments and
    /// each `redis.call`); as `SET` and `RPUSHX`, ~3 µs; as mostly one `SET`, ~2 µs; as one `RPUSHX`, ~1.6 µs
    /// (docs/performance.md, issue 26's sixth to eighth stops). And no snapshot: writing it and finding its
    /// delta cost ~6k instructions a command with an empty search, more with a loaded one.
    private func appendFast(_ session: Session, _ slot: ViewModelSlot, to batch: inout JournalWriteBatch) -> Bool {
        // The extras as last written while the view model's revision of them is the same (typing), else written now.
        let revision = slot.model.extrasRevision
        let extrasKnown = revision != nil && revision == slot.journalExtrasRevision
        if !extrasKnown {
            extrasWriter.removeAll()
            slot.model.writeExtras(to: &extrasWriter)
        }
        let previous = slot.journaledVersion
        // NB: no closure around this (`withBytes`): a closure here checked its executor on every call (~450
        // instructions a command).
        let plan = plan(
            slot, extrasBytes: extrasKnown ? slot.journalExtras.count : extrasWriter.count, previous: previous,
            full: false)
        guard let mark = plan.mark, plan.keep > 0, plan.newlyHeld > 0, plan.newlyHeld <= plan.keep else {
            return false
        }
        slot.journalMark = mark
        let keys = JournalKeys.splitFirst(viewModelKeys(of: slot, in: session))
        let makesList = slot.journalListLength == 0
        let list = listAfterPush(onto: slot, count: plan.newlyHeld, bytes: plan.newBytes, plan: plan)
        let trimmedTo = list.cuts ? plan.keep : 0
        let setsExtras = !extrasKnown && !extrasWriter.hasText(slot.journalExtras)
        let member = JournalWriteBatch.FastMember(
            session: session, slot: slot, makesList: makesList, trimmedTo: trimmedTo, listBytes: list.bytes,
            setsExtras: setsExtras)
        // NB: a push alone (typing) is one step by itself: sent ahead of the transaction, not queued in it.
        batch.transaction.append(argumentCount: 2 + plan.newlyHeld, standalone: member.isStandalone) { command in
            command.append(encoded: makesList ? Self.encodedPush : Self.encodedPushToExisting, count: 1)
            command.append(encoded: keys.first, count: 1)
            appendNewEntries(of: slot, after: previous, skipping: 0, to: &command)
        }
        if makesList {
            batch.transaction.append(argumentCount: 3) { command in
                command.append("PEXPIRE")
                command.append(encoded: keys.first, count: 1)
                command.append(ttlMilliseconds)
            }
            batch.transaction.append(argumentCount: 3) { command in
                command.append("HGET")
                command.append(encoded: JournalKeys.splitFirst(writeKeys(of: session)).first, count: 1)
                command.append("owner")
            }
        }
        if trimmedTo > 0 {
            batch.transaction.append(argumentCount: 4) { command in
                command.append("LTRIM")
                command.append(encoded: keys.first, count: 1)
                command.append(-plan.keep)
                command.append(-1)
            }
        }
        slot.journalExtrasRevision = revision
        if setsExtras {
            slot.journalExtras = extrasWriter.bytes
            batch.transaction.append(argumentCount: 5) { command in
                command.append(encoded: Self.encodedSet, count: 1)
                command.append(encoded: keys.rest, count: 1)
                JournalRecordCoding.appendExtras(slot.journalExtras, to: &command)
                command.append(encoded: encodedExpiry, count: 2)
            }
        }
        session.isBeingJournaled = true
        slot.journaledVersion = slot.channel.latestVersion
        batch.add(member)
        return true
    }

    /// The fast path's constant arguments, encoded once: `SET`, `RPUSHX` (and ``encodedExpiry``).
    private static let encodedSet = RedisCommand([Array("SET".utf8)]).encodedArguments
    private static let encodedPushToExisting = RedisCommand([Array("RPUSHX".utf8)]).encodedArguments
    private static let encodedPush = RedisCommand([Array("RPUSH".utf8)]).encodedArguments

    /// A session's creation as plain commands in the batch's transaction: `HSET` of its hash (owner, epoch,
    /// subject, each view model's checkpoint) and `PEXPIRE` of it; what the script writes in full for it, without
    /// the script. Nothing is fenced: the session's id is fresh (nobody else can own it, none of its keys exist),
    /// and no list or delta key is written (its view models have no patch yet; their checkpoints hold the extras).
    /// False (nothing appended, nothing changed) when the session has more to write than that: idempotency
    /// answers, or a view model with patches (it changed before its first write); the script writes it in full.
    /// NB: what Redis spent on a creation through the script was ~17 µs (11 calls from Lua, among them six `DEL`s
    /// of keys a new session has not got); as these two commands, ~2 µs (docs/performance.md, issue 26's ninth stop).
    private func appendCreation(_ session: Session, to batch: inout JournalWriteBatch) -> Bool {
        guard session.unjournaledAnswers.isEmpty else { return false }
        for slot in session.slots where !slot.channel.heldVersions.isEmpty || slot.channel.replayedPatchCount > 0 {
            return false
        }
        let hash = JournalKeys.splitFirst(writeKeys(of: session)).first
        let subject = session.owner ?? ""
        batch.transaction.append(argumentCount: 6 + (subject.isEmpty ? 0 : 2) + 2 * session.slots.count) { command in
            command.append("HSET")
            command.append(encoded: hash, count: 1)
            command.append("owner")
            command.append(owner)
            command.append("e")
            command.append(session.journalEpoch)
            if !subject.isEmpty {
                command.append("sub")
                command.append(subject)
            }
            for slot in session.slots {
                let extras = writtenExtras(of: slot)
                let channel = slot.channel
                let version = channel.latestVersion
                command.append("vm:" + slot.name)
                JournalRecordCoding.appendCheckpoint(
                    version: version, stateBytes: channel.stateBytes, extras: extras, scratch: &checkpointScratch,
                    compressor: compressor, to: &command)
                slot.journalMark = JournalMark(version: version)
                slot.journalExtras = extras
                slot.journalListLength = 0
                slot.journalListBytes = 0
                slot.journaledVersion = version
            }
        }
        batch.transaction.append(argumentCount: 3) { command in
            command.append("PEXPIRE")
            command.append(encoded: hash, count: 1)
            command.append(ttlMilliseconds)
        }
        session.isBeingJournaled = true
        batch.add(JournalWriteBatch.FastMember(creating: session))
        return true
    }

    /// Sends `batch`: its script call and its transaction; their replies end each of its sessions' writes.
    private func send(_ batch: borrowing JournalWriteBatch) {
        let started = client.clock.now
        if !batch.members.isEmpty {
            let head = scriptCommand(.write, capacity: batch.byteCount + 64)
            let command = batch.command(
                after: head, owner: owner, ttlMilliseconds: ttlMilliseconds, keyCapacity: keyCapacity,
                keyBytesCapacity: keyBytesCapacity)
            let members = batch.members
            statistics.writeCalls += 1
            run(.write, command) { result in
                self.finishBatch(members, result: result, started: started)
            }
        }
        if !batch.fastMembers.isEmpty {
            let members = batch.fastMembers
            statistics.writeCalls += 1
            client.send(batch.transaction) { result in
                self.finishTransaction(members, result: result, started: started)
            }
        }
    }

    /// Ends the writes of one call: each session by its own answer (the script answers one per session), or
    /// every one by the call's failure.
    private func finishBatch(
        _ members: [JournalWriteBatch.Member], result: Result<RedisReply, RedisError>,
        started: ContinuousClock.Instant
    ) {
        if case .success(.array(let replies)) = result, replies.count == members.count {
            onWriteLatency?(client.clock.now - started)
            for index in members.indices {
                let member = members[index]
                finishWrite(
                    member.session, mode: member.mode, outcome: outcome(of: .success(replies[index]), member.session))
            }
        } else {
            for member in members {
                finishWrite(member.session, mode: member.mode, outcome: outcome(of: result, member.session))
            }
        }
    }

    /// Ends the writes of one transaction: a session whose list was there is written; one whose list was gone
    /// (taken over, or lost by Redis) is written in full next, and the script tells which.
    private func finishTransaction(
        _ members: [JournalWriteBatch.FastMember], result: Result<RedisReply, RedisError>,
        started: ContinuousClock.Instant
    ) {
        // NB: a loop, not `reduce`: a closure here checks its executor on every call.
        var commands = 0
        var standalone = 0
        for member in members {
            commands += member.commands
            if member.isStandalone { standalone += 1 }
        }
        guard case .success(.array(let replies)) = result, replies.count == commands else {
            if case .success(let other) = result {
                logger.error("journal transaction: unexpected reply", metadata: ["reply": "\(other)"])
            }
            for member in members {
                finishWrite(
                    member.session, mode: member.slot == nil ? .create : .update,
                    outcome: outcome(of: result, member.session))
            }
            return
        }
        onWriteLatency?(client.clock.now - started)
        // The replies: the standalone pushes' first, in their order, then the transaction's, in theirs.
        var nextStandalone = 0
        var nextQueued = standalone
        for member in members {
            let first: Int
            if member.isStandalone {
                first = nextStandalone
                nextStandalone += 1
            } else {
                first = nextQueued
                nextQueued += member.commands
            }
            let index = first + member.commands
            guard let slot = member.slot else {
                // A creation: `HSET` answers the fields it added, `PEXPIRE` 1 (the hash exists).
                let created = replies[first].integer != nil && replies[first + 1] == .integer(1)
                let reply = created ? RedisReply.integer(1) : .array(Array(replies[first..<index]))
                finishWrite(member.session, mode: .create, outcome: outcome(of: .success(reply), member.session))
                continue
            }
            // NB: `RPUSHX` (or `RPUSH`, `PEXPIRE` and `HGET`) first, then `LTRIM` and `SET` if sent.
            let pushedTo = replies[first].integer ?? 0
            let written =
                pushedTo > 0 && (!member.setsExtras || replies[index - 1] == .status("OK"))
                && (!member.makesList || replies[first + 2].bytes == ownerBytes)
            if written {
                slot.journalListLength = member.trimmedTo > 0 ? member.trimmedTo : Int(pushedTo)
                slot.journalListBytes = member.listBytes
                statistics.writes += 1
                finishWrite(member.session, mode: .update, outcome: .written, carried: slot)
            } else {
                // NB: the list was gone (taken over, or lost by Redis): `RPUSHX` pushed nothing; a `SET` behind it
                // went to a key nobody reads (an old epoch's), which expires. The full write next rewrites them or
                // finds the other owner.
                slot.journalListLength = 0
                slot.journalListBytes = 0
                finishWrite(member.session, mode: .update, outcome: .missing)
            }
        }
    }

    /// What one view model's write carries (``plan(_:extrasBytes:previous:full:)``).
    private struct ViewModelPlan {
        /// The view model's mark once this write is made, or nil: the write is a checkpoint (its mark is made
        /// when it is written).
        var mark: JournalMark?
        /// The versions held since the last write (all of them when `full`).
        var newlyHeld: Int
        /// Their patches' bytes.
        var newBytes: Int
        /// The entries the list keeps: the replay ring as the channel will hold it once these versions are
        /// committed (the newest patches within its count and byte bounds), and every patch since the checkpoint.
        var keep: Int
        /// About their patches' bytes (at most a few patches more: the committed ring is counted whole).
        var keepBytes: Int
    }

    /// Decides one view model's write. A checkpoint (its state and extras, compressed) is written by a full
    /// write, on the first write of a view model this process has no checkpoint of, when the versions since the
    /// last one are not all in this write, and when what was logged since it exceeds the ``JournalLogPolicy``'s
    /// patches or bytes (`extrasBytes` counted: the delta key holds them); every other write sends only the new
    /// patches, and the extras when they changed.
    private func plan(_ slot: ViewModelSlot, extrasBytes: Int, previous: Int, full: Bool) -> ViewModelPlan {
        let channel = slot.channel
        let held = channel.heldVersions
        let latest = channel.latestVersion
        // NB: loops, not `filter` and `reduce`: a closure here checks its executor on every call.
        var newlyHeld = 0
        var newBytes = 0
        for entry in held where full || entry.version > previous {
            newlyHeld += 1
            newBytes += entry.patch.count
        }
        var counted: JournalMark?
        if !full, let mark = slot.journalMark {
            counted = logPolicy.markAfterWrite(
                mark, previous: previous, latest: latest, newPatches: newlyHeld, newBytes: newBytes,
                extrasBytes: extrasBytes)
        }
        var ring = ReplayRingCount(capacity: channel.replayCapacity, byteLimit: channel.replayByteLimit)
        for entry in held.reversed() where full || entry.version > previous { ring.add(entry.patch.count) }
        // NB: the committed ring as a whole when its bytes fit (the common case): no walk over its patches, each
        // of which a walk retains and releases.
        if ring.bytes + channel.replayedByteCount <= ring.byteLimit {
            ring.add(count: channel.replayedPatchCount, bytes: channel.replayedByteCount)
        } else {
            let committed = channel.replayedPatches
            var index = committed.count - 1
            while index >= 0, ring.add(committed[index].patch.count) { index -= 1 }
        }
        let sinceCheckpoint = latest - (counted?.version ?? latest)
        // NB: the mark counts the bytes of the patches since the checkpoint.
        let keepsRing = ring.count >= sinceCheckpoint
        return ViewModelPlan(
            mark: counted, newlyHeld: newlyHeld, newBytes: newBytes, keep: keepsRing ? ring.count : sinceCheckpoint,
            keepBytes: keepsRing ? ring.bytes : counted?.bytes ?? 0)
    }

    /// A push of `count` entries (`bytes` of patches) onto `slot`'s list under `plan`: whether it cuts the list
    /// back to `plan.keep` (``JournalLogPolicy/trimsList(length:keep:excessBytes:)``, or always when
    /// `cutsUnknownLength` and the slot does not know the list's length), and the list's length and patch bytes
    /// afterwards (bounds, as the slot's are).
    private func listAfterPush(
        onto slot: ViewModelSlot, count: Int, bytes: Int, plan: ViewModelPlan, cutsUnknownLength: Bool = false
    ) -> (cuts: Bool, length: Int, bytes: Int) {
        let length = slot.journalListLength + count
        let total = slot.journalListBytes + bytes
        let cuts =
            (cutsUnknownLength && slot.journalListLength == 0)
            || logPolicy.trimsList(length: length, keep: plan.keep, excessBytes: total - plan.keepBytes)
        return cuts ? (true, plan.keep, plan.keepBytes) : (false, length, total)
    }

    /// Appends the entries of `slot`'s versions after `previous` but the first `skip`; returns their patches'
    /// bytes.
    @discardableResult
    private func appendNewEntries(
        of slot: ViewModelSlot, after previous: Int, skipping skip: Int, to command: inout RedisArguments
    ) -> Int {
        var skip = skip
        var bytes = 0
        for entry in slot.channel.heldVersions where entry.version > previous {
            if skip > 0 {
                skip -= 1
                continue
            }
            bytes += entry.patch.count
            JournalRecordCoding.appendReplayEntry(
                version: entry.version, patch: entry.patch, compressor: compressor, to: &command)
        }
        return bytes
    }

    /// Appends one view model's part of a script write: name, checkpoint (with the extras) or the extras for the
    /// delta key, the entries its list keeps, and the patches to push (its new ones; all of its ring for a `full`
    /// write).
    private func appendViewModel(
        _ slot: ViewModelSlot, previous: Int, full: Bool, to command: inout RedisArguments
    ) {
        let extras = writtenExtras(of: slot)
        let channel = slot.channel
        let latest = channel.latestVersion
        let plan = plan(slot, extrasBytes: extras.count, previous: previous, full: full)
        command.append(slot.name)
        if let mark = plan.mark {
            command.append("")
            JournalRecordCoding.appendExtras(extras, to: &command)
            slot.journalMark = mark
        } else {
            let stateBytes = channel.heldVersions.last?.stateBytes ?? channel.stateBytes
            JournalRecordCoding.appendCheckpoint(
                version: latest, stateBytes: stateBytes, extras: extras, scratch: &checkpointScratch,
                compressor: compressor, to: &command)
            command.append("")
            slot.journalMark = JournalMark(version: latest)
        }
        // The script sets the delta key to the extras, or deletes it (a checkpoint holds them).
        slot.journalExtras = extras
        let keep = plan.keep
        // NB: only the patches the list keeps are sent.
        let replayed = full ? channel.replayedPatches : []
        let newSent = min(plan.newlyHeld, keep)
        let oldSent = min(replayed.count, keep - newSent)
        // The length past which the script cuts the list back to `keep`: as the fast path decides (the list's
        // length and bytes known here are bounds), and at once when its length is not known. NB: a full write
        // replaces the list with what it sends (at most `keep`).
        var limit = keep
        if !full, keep > 0, newSent > 0 {
            let list = listAfterPush(
                onto: slot, count: newSent, bytes: plan.newBytes, plan: plan, cutsUnknownLength: true)
            if !list.cuts { limit = logPolicy.listLimit(keep: keep) }
            slot.journalListLength = list.length
            slot.journalListBytes = list.bytes
        }
        command.append(keep)
        command.append(limit)
        command.append(oldSent + newSent)
        var sentBytes = 0
        for (version, patch) in replayed.suffix(oldSent) {
            sentBytes += patch.count
            JournalRecordCoding.appendReplayEntry(version: version, patch: patch, compressor: compressor, to: &command)
        }
        sentBytes += appendNewEntries(
            of: slot, after: full ? Int.min : previous, skipping: plan.newlyHeld - newSent, to: &command)
        // What the list holds once written: exactly what a full write sent, or nothing when it keeps none.
        if full || keep == 0 {
            slot.journalListLength = full ? oldSent + newSent : 0
            slot.journalListBytes = full ? sentBytes : 0
        }
    }

    /// What a script reply (or the call's failure) means for one session's write.
    private func outcome(of result: Result<RedisReply, RedisError>, _ session: Session) -> Writes.WriteOutcome {
        switch result {
        case .success(.integer(1)):
            statistics.writes += 1
            return .written
        case .success(.integer(0)):
            // Another process took the session over: stop writing it, end its streams.
            statistics.handovers += 1
            logger.info("session taken over elsewhere: handed over", metadata: ["session": "\(session.digest)"])
            return .ownedElsewhere
        case .success(.integer(-1)):
            // Redis lost it (expired, or flushed): write it in full again.
            return .missing
        case .success(let other):
            statistics.writeFailures += 1
            logger.error(
                "journal write: unexpected reply", metadata: ["session": "\(session.digest)", "reply": "\(other)"])
            return .unexpected
        case .failure(let error):
            statistics.writeFailures += 1
            logger.warning("journal write failed", metadata: ["session": "\(session.digest)", "error": "\(error)"])
            return .failed
        }
    }

    /// Ends the write of `session`: acts on what the machine decided, releases the session's waiters, and marks
    /// it again when it changed meanwhile. `carried`: the one view model the write carried (a fast write), the only
    /// one it commits on.
    private func finishWrite(
        _ session: Session, mode: Writes.WriteMode, outcome: Writes.WriteOutcome, carried: ViewModelSlot? = nil
    ) {
        session.isBeingJournaled = false
        let action = writes.writeEnded(ObjectIdentifier(session), session, mode: mode, outcome: outcome)
        if action == .commit, let carried {
            // NB: the others have nothing held through their `journaledVersion`; a walk over every slot retained
            // each slot and channel (~300 instructions a command).
            carried.commitJournaledVersions()
        } else {
            act(on: action, for: session)
        }
        if action == .handOver { return }
        let more = session.hasUnjournaledChanges
        session.isQueuedForJournal = false
        session.journalWriteEnded()
        if Writes.writesAgain(hasUnjournaledChanges: more, isClosed: session.isClosed) { markDirty(session) }
    }

    /// Does what the machine decided after a write of `session` ended.
    private func act(on action: Writes.WriteEndAction, for session: Session) {
        switch action {
        case .commit:
            // Each view model through the version the write carried (a view model it did not carry has no held
            // version up to its `journaledVersion`: nothing to commit).
            for slot in session.slots { slot.commitJournaledVersions() }
        case .handOver:
            store.handOver(session.id)
        case .writeInFull:
            markDirty(session)
        case .degrade:
            // Served from memory: its held versions go out now, and it is written in full once Redis is back.
            for slot in session.slots { slot.channel.commit(through: slot.channel.latestVersion) }
            session.journalWriteEnded()
        }
    }

    private func clientStateChanged(_ state: RedisClientState) {
        switch state {
        case .ready:
            let sessions = writes.catchUp()
            logger.info("journal available", metadata: ["catching up": "\(sessions.count) sessions"])
            for session in sessions where !session.isClosed { markDirty(session) }
        case .disconnected:
            // Versions held for writes that will now fail go out when those fail; new ones are not held.
            logger.warning("journal unavailable: serving from memory")
        case .idle, .connecting, .shutdown:
            break
        }
    }

    // MARK: Expiry

    /// Refreshes the Redis expiry of sessions used since the last refresh (a request or an open stream): one
    /// script call for up to ``JournalWriteBatch/maximumSessions`` of them (``JournalScript/touch``).
    private func touchActiveSessions() {
        guard client.isAvailable else { return }
        let since = lastTouch
        lastTouch = client.clock.now
        var sessions: [Session] = []
        for session in store.all where session.lastActivity >= since || session.openStreamCount > 0 {
            sessions.append(session)
            if sessions.count == JournalWriteBatch.maximumSessions {
                touch(sessions)
                sessions.removeAll(keepingCapacity: true)
            }
        }
        if !sessions.isEmpty { touch(sessions) }
    }

    /// Refreshes the expiry of `sessions` in one call: each session's keys (its hash first, then its view
    /// models' lists and deltas under its epoch), then the key count of each.
    private func touch(_ sessions: [Session]) {
        var keys = RedisArguments(capacity: sessions.count * 512)
        var counts = RedisArguments(capacity: sessions.count * 4)
        for session in sessions {
            let before = keys.count
            keys.append(encoded: writeKeys(of: session), count: 3)
            for slot in session.slots { keys.append(encoded: viewModelKeys(of: slot, in: session), count: 2) }
            counts.append(keys.count - before)
        }
        var command = scriptCommand(.touch, capacity: keys.byteCount + counts.byteCount + 64)
        command.append(keys.count)
        command.append(keys)
        command.append(owner)
        command.append(ttlMilliseconds)
        command.append(counts)
        statistics.touchCalls += 1
        statistics.touchedSessions += sessions.count
        run(.touch, command) { result in
            let replies: [RedisReply]? =
                if case .success(.array(let replies)) = result, replies.count == sessions.count { replies } else { nil }
            for index in sessions.indices { self.touched(sessions[index], reply: replies?[index]) }
        }
    }

    /// Acts on what the expiry refresh learned: a session another process took over is handed over (its
    /// streams end, so their clients reconnect to the owner, even when this process has nothing to write);
    /// one Redis lost is written in full.
    private func touched(_ session: Session, reply: RedisReply?) {
        guard !session.isClosed, store.session(session.id, touching: false) === session else { return }
        let outcome: Writes.TouchOutcome
        switch reply {
        case .integer(0): outcome = .ownedElsewhere
        case .integer(-1): outcome = .missing
        default: outcome = .refreshed
        }
        switch writes.touched(
            ObjectIdentifier(session), session, outcome: outcome, isBeingWritten: session.isBeingJournaled)
        {
        case .none:
            break
        case .handOver:
            statistics.handovers += 1
            logger.info("session owned elsewhere: handed over", metadata: ["session": "\(session.digest)"])
            store.handOver(session.id)
        case .writeInFull:
            markDirty(session)
        }
    }

    // MARK: Scripts

    /// Runs a script by its SHA1 once Redis knows it (`EVALSHA`), else by its text (`EVAL`), learning the SHA1.
    private func evaluate(
        _ script: JournalScript, keys: [String], arguments: [[UInt8]]
    ) async throws(RedisError) -> RedisReply {
        typealias Outcome = CheckedContinuation<Result<RedisReply, RedisError>, Never>
        let result = await withCheckedContinuation { (continuation: Outcome) in
            evaluate(script, keys: keys, arguments: arguments) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// The same, calling `completion` on the loop with the outcome: no task and no continuation.
    func evaluate(
        _ script: JournalScript, keys: [String], arguments: [[UInt8]],
        then completion: @escaping @LoopActor (Result<RedisReply, RedisError>) -> Void
    ) {
        var command = scriptCommand(script)
        command.append(keys.count)
        for key in keys { command.append(key) }
        for argument in arguments { command.append(argument) }
        run(script, command, then: completion)
    }

    /// A command that runs `script`: `EVALSHA` and its SHA1 once Redis is known to have it, else `EVAL` and its
    /// text. The caller appends the number of keys, the keys and the arguments, then ``run(_:_:then:)``s it.
    /// NB: the write path encodes its arguments straight behind these two: nothing is copied to send it.
    private func scriptCommand(_ script: JournalScript, capacity: Int = 256) -> RedisCommand {
        guard let hash = scriptHashes[script] else {
            var command = RedisCommand(capacity: capacity + script.source.utf8.count + 16)
            command.append("EVAL")
            command.append(script.source)
            return command
        }
        var command = RedisCommand(capacity: capacity + 64)
        command.append("EVALSHA")
        command.append(hash)
        return command
    }

    /// Sends a ``scriptCommand(_:capacity:)``. Refused with `NOSCRIPT` (Redis restarted or flushed its scripts),
    /// it goes again with the script's text; after a run by text, Redis is asked for the SHA1 to use next.
    private func run(
        _ script: JournalScript, _ command: consuming RedisCommand,
        then completion: @escaping @LoopActor (Result<RedisReply, RedisError>) -> Void
    ) {
        var command = command
        // NB: sealed here, while this is the only copy (the client would seal a shared one by copying it).
        command.seal()
        // NB: `scriptCommand` writes `EVALSHA` exactly when the SHA1 is known, and nothing unlearns it before
        // the command is sent.
        let byHash = scriptHashes[script] != nil
        client.send(command) { [command] result in
            if byHash, case .failure(.server(let message)) = result, message.hasPrefix("NOSCRIPT") {
                self.scriptHashes[script] = nil
                var byText = self.scriptCommand(script, capacity: command.byteCount)
                byText.append(contentsOf: command.arguments(from: 2))
                self.run(script, byText, then: completion)
                return
            }
            completion(result)
            guard !byHash, self.scriptHashes[script] == nil else { return }
            self.client.send(["SCRIPT", "LOAD", script.source].map { Array($0.utf8) }) { learned in
                if case .success(let reply) = learned, let hash = reply.string { self.scriptHashes[script] = hash }
            }
        }
    }
}

/// One wait of a drain, ended by whichever comes first: every session durable, or the limit.
@LoopActor
private final class DrainWait {
    var continuation: CheckedContinuation<Void, Never>?

    func finish() {
        continuation?.resume()
        continuation = nil
    }
}
