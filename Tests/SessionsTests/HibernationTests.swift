import EventLoop
import Sessions
import Testing
import VMHostTesting
import ViewModels

/// A journal whose hibernations the test answers by hand, and whose loads return what the test put in.
@LoopActor
final class ScriptedJournal: SessionJournal {
    /// NB: false: versions go out at once, so a session has nothing unjournaled unless a test says so.
    var holdsVersions = false
    /// Whether a hibernation is sent (false: the journal is unavailable, nothing is sent).
    var sends = true
    var loads: [String] = []
    var records: [String: SessionRecord] = [:]
    /// How many changes sessions reported.
    var changes = 0
    var hibernations: [(session: Session, idle: Duration, answer: @LoopActor (HibernationOutcome) -> Void)] = []

    func sessionChanged(_ session: Session) { changes += 1 }
    func sessionCreated(_ session: Session) {}
    func sessionRemoved(_ session: Session) {}

    func load(_ id: String) async -> JournalLoad {
        loads.append(id)
        guard let record = records[id] else { return .notFound }
        return .found(record)
    }

    func hibernate(
        _ session: Session, idleFor idle: Duration, then completion: @escaping @LoopActor (HibernationOutcome) -> Void
    ) -> Bool {
        guard sends else { return false }
        hibernations.append((session, idle, completion))
        // A session released in Redis is there to be taken back.
        records[session.id] = SessionRecord(id: session.id, viewModels: [:], idempotency: [], owner: session.owner)
        return true
    }

    /// Answers the oldest hibernation not answered yet.
    func answer(_ outcome: HibernationOutcome) {
        let first = hibernations.removeFirst()
        first.answer(outcome)
    }
}

/// Which sessions hibernate when, and what a request for one finds while and after it does, on the test clock
/// (the journal is scripted; `HibernationTests` in VMHostTests run it on a real Redis).
@Suite("SessionStore: hibernation")
@LoopActor
struct SessionHibernationTests {
    let time = ManualTime()
    let upstream = UnusedUpstream()
    let journal = ScriptedJournal()

    func makeStore(hibernateAfter: Duration? = .seconds(60)) -> SessionStore {
        let upstream = upstream
        let time = time
        var configuration = SessionStoreConfiguration(idleTimeout: .seconds(600), maxSessions: 10)
        configuration.hibernateAfter = hibernateAfter
        let store = SessionStore(
            configuration: configuration,
            viewModels: [ViewModelRegistration(ProductListViewModel.self) { ProductListViewModel(service: upstream) }],
            clock: time.clock
        )
        store.journal = journal
        return store
    }

    /// A store whose one session's release failed after 60 idle seconds (its ownership uncertain): the session.
    func sessionWithAFailedRelease(in store: SessionStore) throws -> Session {
        let session = try store.create()
        time.elapsed = .seconds(60)
        store.hibernateIdleSessions()
        journal.answer(.failed)
        return session
    }

    @Test func aSessionIsDueOnlyIdleWithoutStreamsAndOnlyWithHibernationOn() throws {
        let store = makeStore()
        let idle = try store.create()
        let used = try store.create()
        let streaming = try store.create()
        let sink = FakeEventSink()
        streaming.countStream(sink)
        streaming.subscribeAll(sink, format: .patches, resumeFrom: nil)

        time.elapsed = .seconds(30)
        #expect(store.session(used.id) === used, "a lookup marks the session active")
        time.elapsed = .seconds(59)
        #expect(store.sessionsDueForHibernation().isEmpty)
        time.elapsed = .seconds(60)
        #expect(store.sessionsDueForHibernation().map(\.id) == [idle.id], "the used one and the streaming one stay")
        time.elapsed = .seconds(90)
        #expect(Set(store.sessionsDueForHibernation().map(\.id)) == [idle.id, used.id])

        sink.clientCloses()
        #expect(Set(store.sessionsDueForHibernation().map(\.id)) == [idle.id, used.id, streaming.id])

        let never = makeStore(hibernateAfter: nil)
        _ = try never.create()
        time.elapsed = .seconds(10_000)
        #expect(never.sessionsDueForHibernation().isEmpty, "hibernation off")
        never.journal = nil
        let withoutJournal = makeStore()
        withoutJournal.journal = nil
        _ = try withoutJournal.create()
        time.elapsed = .seconds(20_000)
        #expect(withoutJournal.sessionsDueForHibernation().isEmpty, "no journal: nothing changes")
    }

    @Test func aRequestDuringTheReleaseWaitsThenTakesTheSessionBack() async throws {
        let store = makeStore()
        let session = try store.create()
        time.elapsed = .seconds(61)
        store.hibernateIdleSessions()
        #expect(journal.hibernations.count == 1)
        #expect(journal.hibernations.first?.idle == .seconds(61))
        #expect(store.count == 0, "out of the map while the release is in flight")
        #expect(store.session(session.id) == nil)
        #expect(!session.isClosed)

        let lookup = Task { await store.sessionOrTakeOver(session.id) }
        await Task.yield()
        await Task.yield()
        #expect(journal.loads.isEmpty, "the request waits: no takeover while the release may be happening")

        journal.answer(.released)
        #expect(session.isClosed, "freed once released")
        #expect(store.hibernatedCount == 1)
        #expect(store.hibernationStatistics.hibernations == 1)
        guard case .found(let woken) = await lookup.value else {
            Issue.record("the waiting request found no session")
            return
        }
        #expect(journal.loads == [session.id], "taken back from the journal")
        #expect(woken !== session && woken.id == session.id)
        #expect(store.count == 1)
        #expect(store.hibernatedCount == 0)
        #expect(store.hibernationStatistics.wakeups == 1)
        store.hibernateIdleSessions()
        #expect(journal.hibernations.isEmpty, "just woken: not due")
    }

    @Test func aSubjectsHibernatedSessionsStayCountedUntilTheyExpire() async throws {
        let store = makeStore()
        let first = try store.create(owner: "alice")
        _ = try store.create(owner: "alice")
        _ = try store.create(owner: "bob")
        time.elapsed = .seconds(60)
        store.hibernateIdleSessions()
        #expect(journal.hibernations.count == 3)
        for _ in 0..<3 { journal.answer(.released) }
        #expect(store.count == 0)
        #expect(store.count(ownedBy: "alice") == 2, "hibernated, still the subject's (maxSessionsPerSubject)")
        #expect(store.count(ownedBy: "bob") == 1)

        // Woken: counted once, as a resident session.
        guard case .found = await store.sessionOrTakeOver(first.id) else {
            Issue.record("not woken")
            return
        }
        #expect(store.count == 1)
        #expect(store.count(ownedBy: "alice") == 2)

        // Past the idle timeout (600 s) the hibernated ones are gone from Redis, and from the counts.
        time.elapsed = .seconds(60 + 601 + 60)
        _ = store.session(first.id)
        store.hibernateIdleSessions()
        #expect(store.count(ownedBy: "alice") == 1, "only the woken one, resident")
        #expect(store.count(ownedBy: "bob") == 0)
        #expect(store.hibernatedCount == 0)
    }

    @Test func aFailedReleaseKeepsTheSessionUntilARetryAnswers() async throws {
        let store = makeStore()
        let session = try sessionWithAFailedRelease(in: store)
        #expect(!session.isClosed, "kept: its ownership is uncertain")
        #expect(store.count == 0, "and not served from memory")
        #expect(store.hibernatingCount == 1)
        #expect(store.hibernationStatistics.failures == 1)

        // Redis unavailable: a request cannot settle it and is told to retry.
        journal.sends = false
        guard case .retryLater = await store.sessionOrTakeOver(session.id) else {
            Issue.record("a session whose release failed was served")
            return
        }
        #expect(journal.loads.isEmpty)

        // Redis back: the next sweep retries, and a request meanwhile waits for that answer.
        journal.sends = true
        store.hibernateIdleSessions()
        #expect(journal.hibernations.count == 1, "retried")
        let lookup = Task { await store.sessionOrTakeOver(session.id) }
        await Task.yield()
        #expect(journal.loads.isEmpty)
        journal.answer(.released)
        guard case .found = await lookup.value else {
            Issue.record("not taken back after the retry")
            return
        }
        #expect(session.isClosed)
        #expect(store.hibernationStatistics.hibernations == 1)
    }

    @Test func anUnavailableJournalKeepsTheSessionResident() throws {
        let store = makeStore()
        let session = try store.create()
        journal.sends = false
        time.elapsed = .seconds(60)
        store.hibernateIdleSessions()
        #expect(store.session(session.id, touching: false) === session, "still resident, due again later")
        #expect(store.hibernatingCount == 0)
        journal.sends = true
        store.hibernateIdleSessions()
        #expect(journal.hibernations.count == 1, "hibernated once the journal can take it")
    }

    @Test func aSessionTheJournalLostStaysAndOneOwnedElsewhereGoes() throws {
        let store = makeStore()
        let lost = try store.create()
        let stolen = try store.create()
        var removed: [String] = []
        store.onRemove = { session, reason in removed.append("\(session.id == lost.id ? "lost" : "stolen") \(reason)") }
        time.elapsed = .seconds(60)
        store.hibernateIdleSessions()
        #expect(journal.hibernations.count == 2)
        for _ in 0..<2 {
            let next = try #require(journal.hibernations.first)
            journal.answer(next.session === lost ? .stayResident : .ownedElsewhere)
        }
        #expect(store.session(lost.id, touching: false) === lost, "resident again, the same object")
        #expect(!lost.isClosed)
        #expect(stolen.isClosed && stolen.wasHandedOver)
        #expect(removed == ["stolen handed-over"])
        #expect(store.hibernationStatistics.hibernations == 0)
        #expect(store.hibernatedCount == 0)
    }

    @Test func aFailedHibernationExpiresWithTheIdleTimeoutAndShutdownEndsWaiters() async throws {
        let store = makeStore()
        let failed = try sessionWithAFailedRelease(in: store)
        time.elapsed = .seconds(600)
        store.expireIdleSessions()
        #expect(failed.isClosed)
        #expect(store.hibernatingCount == 0)

        let pending = try store.create()
        time.elapsed = .seconds(700)
        store.hibernateIdleSessions()
        let lookup = Task { await store.sessionOrTakeOver(pending.id) }
        await Task.yield()
        store.closeAll()
        guard case .retryLater = await lookup.value else {
            Issue.record("a lookup waiting at shutdown must be told to retry")
            return
        }
        #expect(pending.isClosed)
    }
}
