import Testing

@testable import Journal

/// ``RedisJournal/StateMachine`` on its own: batching, the flush's choices, every write and refresh outcome and
/// hibernation, with strings for sessions and instants made by hand (no Redis, no socket, no clock).
@Suite("Journal: state machine")
struct JournalStateMachineTests {
    typealias Machine = RedisJournal.StateMachine<String, String>
    let start = ContinuousClock.now

    func at(_ offset: Duration) -> ContinuousClock.Instant { start + offset }

    /// What `entries` (a batch, or the dirty sessions) hold, as `id: member`, in order.
    func described(_ entries: [(id: String, member: String)]) -> [String] {
        entries.map { "\($0.id): \($0.member)" }
    }

    /// A machine with `ids` marked dirty (the first at `start`), no flush scheduled.
    func machine(dirty ids: [String] = []) -> Machine {
        var machine = Machine()
        for id in ids { _ = machine.markDirty(id, "session " + id, at: start, flushScheduled: false) }
        return machine
    }

    // MARK: Batching

    @Test func theFirstMarkSchedulesAFlushAtTheEndOfThisTurn() {
        var machine = Machine()
        #expect(machine.markDirty("a", "A", at: start, flushScheduled: false) == .endOfTurn)
        #expect(described(machine.dirty) == ["a: A"])
        #expect(machine.dirtySince == start)
        #expect(machine.needsFullWrite.isEmpty, "a change is an update")
    }

    @Test func aMarkWhileAFlushIsScheduledSchedulesNothing() {
        var machine = machine(dirty: ["a"])
        #expect(machine.markDirty("b", "B", at: at(.seconds(1)), flushScheduled: true) == .none)
        #expect(described(machine.dirty) == ["a: session a", "b: B"], "in the order marked")
        #expect(machine.dirtySince == start, "the lag is the oldest change's")
    }

    @Test func theClockIsReadOnlyForTheFirstMarkOfABatch() {
        var machine = machine(dirty: ["a"])
        var reads = 0
        func now() -> ContinuousClock.Instant {
            reads += 1
            return at(.seconds(5))
        }
        _ = machine.markDirty("b", "B", at: now(), flushScheduled: true)
        #expect(machine.markDirty("a", "A", isQueued: true, at: now(), flushScheduled: false) == .none)
        #expect(reads == 0)
        #expect(described(machine.dirty) == ["a: session a", "b: B"], "queued already: not added twice")
        _ = machine.beginFlush()
        _ = machine.markDirty("c", "C", at: now(), flushScheduled: false)
        #expect(reads == 1)
        #expect(machine.dirtySince == at(.seconds(5)))
    }

    @Test func aMarkDuringAFlushWaitsForTheNextTurn() {
        var machine = machine(dirty: ["a"])
        _ = machine.beginFlush()
        #expect(machine.isFlushing)
        #expect(machine.markDirty("a", "A", at: start, flushScheduled: false) == .nextTurn, "no turn that never ends")
        #expect(machine.markDirty("b", "B", at: start, flushScheduled: true) == .none)
        machine.endFlush()
        #expect(!machine.isFlushing)
        #expect(machine.dirty.map(\.id) == ["a", "b"], "marked during the flush: in the next batch")
        #expect(machine.markDirty("c", "C", at: start, flushScheduled: false) == .endOfTurn)
    }

    @Test func aStoppedJournalMarksNothing() {
        var machine = machine(dirty: ["a"])
        machine.stop()
        #expect(machine.isStopped)
        #expect(machine.markDirty("b", "B", at: start, flushScheduled: false) == .ignored)
        #expect(machine.markDirty("a", "A", at: start, flushScheduled: true) == .ignored)
        #expect(machine.dirty.map(\.id) == ["a"])
        #expect(machine.created("c", "C", at: start, flushScheduled: false) == .ignored)
        #expect(!machine.dirty.contains { $0.id == "c" })
    }

    @Test func aCreatedSessionIsWrittenInFullAsACreation() {
        var machine = Machine()
        #expect(machine.created("a", "A", at: start, flushScheduled: false) == .endOfTurn)
        #expect(described(machine.dirty) == ["a: A"] && machine.needsFullWrite == ["a": "A"])
        #expect(machine.uncreated == ["a"])
        let batch = machine.beginFlush()
        #expect(described(batch) == ["a: A"])
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.create))
    }

    /// A creation made or not (its reply lost, or Redis away) leaves the session due a full write, fenced this
    /// time: Redis may hold the hash it wrote.
    @Test(arguments: [Machine.WriteOutcome.failed, .unexpected])
    func aCreationThatFailedIsWrittenInFullThroughTheFence(outcome: Machine.WriteOutcome) {
        var machine = Machine()
        _ = machine.created("a", "A", at: start, flushScheduled: false)
        _ = machine.beginFlush()
        #expect(machine.writeEnded("a", "A", mode: .create, outcome: outcome) == .degrade)
        #expect(machine.needsFullWrite == ["a": "A"] && machine.uncreated.isEmpty)
        _ = machine.markDirty("a", "A", at: start, flushScheduled: false)
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.full))
    }

    @Test func aWrittenCreationCommitsAndEndsTheNeedForAFullWrite() {
        var machine = Machine()
        _ = machine.created("a", "A", at: start, flushScheduled: false)
        _ = machine.beginFlush()
        #expect(machine.writeEnded("a", "A", mode: .create, outcome: .written) == .commit)
        #expect(machine.needsFullWrite.isEmpty && machine.uncreated.isEmpty)
        _ = machine.markDirty("a", "A", at: start, flushScheduled: false)
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.update))
    }

    /// A write that could not be made (Redis unavailable at the flush) sent nothing: the session is still new.
    @Test func aCreationThatCouldNotBeMadeIsStillOne() {
        var machine = Machine()
        _ = machine.created("a", "A", at: start, flushScheduled: false)
        _ = machine.beginFlush()
        #expect(machine.writeImpossible("a", "A") == .degrade)
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.create))
    }

    @Test func aForgottenSessionIsNeitherDirtyNorDueInFull() {
        var machine = Machine()
        _ = machine.created("a", "A", at: start, flushScheduled: false)
        _ = machine.markDirty("b", "B", at: start, flushScheduled: true)
        _ = machine.markDirty("c", "C", at: start, flushScheduled: true)
        machine.forget("b")
        #expect(described(machine.dirty) == ["a: A", "c: C"], "the others stay, in order")
        machine.forget("a")
        #expect(described(machine.dirty) == ["c: C"] && machine.needsFullWrite.isEmpty && machine.uncreated.isEmpty)
    }

    // MARK: Flushing

    @Test func aFlushTakesTheWholeBatch() {
        var machine = machine(dirty: ["a", "b"])
        let batch = machine.beginFlush()
        #expect(described(batch) == ["a: session a", "b: session b"])
        #expect(machine.dirty.isEmpty && machine.dirtySince == nil)
        #expect(machine.beginFlush().isEmpty, "a second flush has nothing left")
    }

    @Test func aFlushSkipsClosedSessionsAndWaitsForWritesInFlight() {
        var machine = machine(dirty: ["a"])
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.update))
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: true) == .waitForWriteInFlight)
        #expect(machine.flushAction(for: "a", isClosed: true, isBeingWritten: false) == .skip)
        #expect(machine.flushAction(for: "a", isClosed: true, isBeingWritten: true) == .skip, "closed wins")
    }

    // MARK: Write outcomes

    @Test func aWrittenUpdateCommits() {
        var machine = Machine()
        #expect(machine.writeEnded("a", "A", mode: .update, outcome: .written) == .commit)
        #expect(machine.needsFullWrite.isEmpty)
    }

    @Test func aWrittenFullWriteCommitsAndEndsTheNeedForOne() {
        var machine = Machine()
        _ = machine.created("a", "A", at: start, flushScheduled: false)
        _ = machine.beginFlush()
        #expect(machine.writeEnded("a", "A", mode: .full, outcome: .written) == .commit)
        #expect(machine.needsFullWrite.isEmpty)
        _ = machine.markDirty("a", "A", at: start, flushScheduled: false)
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.update))
    }

    @Test func anUpdateWrittenWhileAFullWriteIsDueLeavesItDue() {
        var machine = Machine()
        _ = machine.writeImpossible("a", "A")
        #expect(machine.writeEnded("a", "A", mode: .update, outcome: .written) == .commit)
        #expect(machine.needsFullWrite == ["a": "A"], "only a full write makes it durable again")
    }

    @Test func aSessionOwnedElsewhereIsHandedOverAndForgotten() {
        var machine = Machine()
        _ = machine.created("a", "A", at: start, flushScheduled: false)
        _ = machine.markDirty("b", "B", at: start, flushScheduled: true)
        #expect(machine.writeEnded("a", "A", mode: .full, outcome: .ownedElsewhere) == .handOver)
        #expect(described(machine.dirty) == ["b: B"] && machine.needsFullWrite.isEmpty)
    }

    @Test func aSessionRedisLostIsWrittenInFull() {
        var machine = Machine()
        #expect(machine.writeEnded("a", "A", mode: .update, outcome: .missing) == .writeInFull)
        #expect(machine.needsFullWrite == ["a": "A"])
        #expect(machine.markDirty("a", "A", at: start, flushScheduled: false) == .endOfTurn)
        _ = machine.beginFlush()
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.full))
    }

    @Test(arguments: [Machine.WriteOutcome.failed, .unexpected])
    func aFailedWriteDegradesAndIsWrittenInFullLater(outcome: Machine.WriteOutcome) {
        var machine = Machine()
        #expect(machine.writeEnded("a", "A", mode: .update, outcome: outcome) == .degrade)
        #expect(machine.needsFullWrite == ["a": "A"])
        #expect(machine.dirty.isEmpty, "not written again until Redis is back")
        #expect(machine.catchUp() == ["A"])
    }

    @Test func aWriteThatCannotBeMadeDegrades() {
        var machine = Machine()
        #expect(machine.writeImpossible("a", "A") == .degrade)
        #expect(machine.needsFullWrite == ["a": "A"])
    }

    @Test func aSessionIsWrittenAgainOnlyWhenOpenAndChanged() {
        #expect(Machine.writesAgain(hasUnjournaledChanges: true, isClosed: false))
        #expect(!Machine.writesAgain(hasUnjournaledChanges: false, isClosed: false))
        #expect(!Machine.writesAgain(hasUnjournaledChanges: true, isClosed: true))
        #expect(!Machine.writesAgain(hasUnjournaledChanges: false, isClosed: true))
    }

    @Test func catchingUpWritesEverySessionDueInFull() {
        var machine = Machine()
        #expect(machine.catchUp().isEmpty)
        _ = machine.writeImpossible("a", "A")
        _ = machine.writeEnded("b", "B", mode: .update, outcome: .failed)
        _ = machine.writeEnded("c", "C", mode: .update, outcome: .written)
        #expect(machine.catchUp().sorted() == ["A", "B"])
        #expect(machine.needsFullWrite.count == 2, "due until a full write is acknowledged")
    }

    // MARK: Expiry refresh

    @Test func aRefreshChangesNothing() {
        var machine = machine(dirty: ["a"])
        #expect(machine.touched("a", "A", outcome: .refreshed, isBeingWritten: false) == .none)
        #expect(machine.dirty.count == 1 && machine.needsFullWrite.isEmpty)
    }

    @Test func aRefreshFindingAnotherOwnerHandsOverUnlessAWriteIsInFlight() {
        var machine = machine(dirty: ["a"])
        #expect(machine.touched("a", "A", outcome: .ownedElsewhere, isBeingWritten: true) == .none)
        #expect(machine.dirty.count == 1, "the write in flight's own outcome decides")
        #expect(machine.touched("a", "A", outcome: .ownedElsewhere, isBeingWritten: false) == .handOver)
        #expect(machine.dirty.isEmpty && machine.needsFullWrite.isEmpty)
    }

    @Test func aRefreshFindingTheSessionMissingWritesItInFull() {
        var machine = Machine()
        #expect(machine.touched("a", "A", outcome: .missing, isBeingWritten: false) == .writeInFull)
        #expect(machine.needsFullWrite == ["a": "A"])
    }

    // MARK: Hibernation

    @Test func aDurableQuietSessionMayHibernate() {
        let machine = Machine()
        #expect(machine.hibernation(of: "a", hasUnjournaledChanges: false) == .release)
    }

    @Test func aSessionWithChangesNotYetWrittenStaysResident() {
        let machine = machine(dirty: ["a"])
        #expect(machine.hibernation(of: "a", hasUnjournaledChanges: false) == .refuse, "dirty")
        #expect(machine.hibernation(of: "b", hasUnjournaledChanges: true) == .refuse, "held versions or answers")
    }

    @Test func aSessionDueInFullIsWrittenBeforeItHibernates() {
        var machine = Machine()
        machine.hibernationFoundMissing("a", "A")
        #expect(machine.needsFullWrite == ["a": "A"])
        #expect(machine.hibernation(of: "a", hasUnjournaledChanges: false) == .writeInFullFirst)
    }

    @Test func aStoppedJournalHibernatesNothing() {
        var machine = Machine()
        _ = machine.writeImpossible("a", "A")
        machine.stop()
        #expect(machine.hibernation(of: "a", hasUnjournaledChanges: false) == .refuse)
        #expect(machine.hibernation(of: "b", hasUnjournaledChanges: false) == .refuse)
    }

    // MARK: A whole exchange

    /// A session created, changed while its first write (a creation) is in flight, and written again as an update.
    @Test func aChangeDuringAWriteInFlightIsWrittenAfterIt() {
        var machine = Machine()
        #expect(machine.created("a", "A", at: start, flushScheduled: false) == .endOfTurn)
        #expect(described(machine.beginFlush()) == ["a: A"])
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.create))
        machine.endFlush()
        // A command changes it while the write is in flight: the next flush leaves it waiting.
        #expect(machine.markDirty("a", "A", at: at(.milliseconds(1)), flushScheduled: false) == .endOfTurn)
        #expect(described(machine.beginFlush()) == ["a: A"])
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: true) == .waitForWriteInFlight)
        machine.endFlush()
        // Another change meanwhile: the session is queued (its write in flight writes it again), not added twice.
        #expect(machine.markDirty("a", "A", isQueued: true, at: at(.milliseconds(1)), flushScheduled: false) == .none)
        #expect(machine.dirty.isEmpty)
        // The creation is acknowledged; the session still has changes, so it is marked again.
        #expect(machine.writeEnded("a", "A", mode: .create, outcome: .written) == .commit)
        #expect(Machine.writesAgain(hasUnjournaledChanges: true, isClosed: false))
        #expect(machine.markDirty("a", "A", at: at(.milliseconds(2)), flushScheduled: false) == .endOfTurn)
        #expect(described(machine.beginFlush()) == ["a: A"])
        #expect(machine.flushAction(for: "a", isClosed: false, isBeingWritten: false) == .write(.update))
    }
}
