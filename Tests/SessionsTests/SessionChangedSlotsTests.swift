import EventLoop
import Testing
import ViewModels

@testable import Sessions

/// Which of a session's view models its journal looks at (``Session/slotsWithChanges``,
/// ``Session/hasUnjournaledChanges``): those that published since they were last found written and committed.
@Suite("Session: changed slots")
@LoopActor
struct SessionChangedSlotsTests {
    let upstream = UnusedUpstream()

    func makeSession() -> Session {
        Session(
            id: "s-1",
            viewModels: [
                ViewModelRegistration(SearchViewModel.self) { SearchViewModel(service: upstream) },
                ViewModelRegistration(ProductListViewModel.self) { ProductListViewModel(service: upstream) },
            ],
            now: ContinuousClock.now)
    }

    /// What the journal does when a write of `session` is acknowledged: each slot is written through its latest
    /// version, and that version is committed (shown).
    func writeAndCommit(_ session: Session) {
        for slot in session.slots {
            slot.journaledVersion = slot.channel.latestVersion
            slot.channel.commit(through: slot.channel.latestVersion)
        }
    }

    @Test func onlyTheViewModelsThatPublishedSinceTheirLastWriteAreLookedAt() throws {
        let session = makeSession()
        let journal = ScriptedJournal()
        journal.holdsVersions = true
        session.attach(journal)
        let search = try #require(session.slot("search")?.model as? SearchViewModel)

        // Nothing is known of a new session's view models: each is looked at until it is written.
        #expect(session.slotsWithChanges.map(\.name) == ["search", "products"])
        #expect(!session.hasUnjournaledChanges, "nothing held")
        #expect(session.slotsWithChanges.map(\.name) == ["search", "products"], "not written yet")
        writeAndCommit(session)
        #expect(!session.hasUnjournaledChanges)
        #expect(session.slotsWithChanges.map(\.name) == [], "written and committed: dropped")

        // A command changes the search: only the search is looked at.
        search.setText("kittens")
        #expect(journal.changes == 1)
        #expect(session.slotsWithChanges.map(\.name) == ["search"])
        #expect(session.hasUnjournaledChanges, "a held version")

        // Written, not yet committed: still unjournaled, still looked at.
        session.slots[0].journaledVersion = session.slots[0].channel.latestVersion
        #expect(session.hasUnjournaledChanges)
        #expect(session.slotsWithChanges.map(\.name) == ["search"])
        session.slots[0].channel.commit(through: session.slots[0].channel.latestVersion)
        #expect(!session.hasUnjournaledChanges)
        #expect(session.slotsWithChanges.map(\.name) == [])

        // Committed but not written (the journal was unavailable and let the version go out): still looked at,
        // so that the next write carries it.
        search.setText("kittens and cats")
        session.slots[0].channel.commit(through: session.slots[0].channel.latestVersion)
        #expect(!session.hasUnjournaledChanges)
        #expect(session.slotsWithChanges.map(\.name) == ["search"])
    }

    /// The places in `slots` of the slots `selection` gives, in the order it gives them.
    func places(_ selection: SlotSelection, in slots: [ViewModelSlot]) -> [Int?] {
        selection.map { selected in slots.firstIndex { $0 === selected } }
    }

    @Test func aSelectionIsTheSlotsOfItsBitsInOrderOrEverySlot() {
        let slots = makeSession().slots + makeSession().slots
        #expect(places(SlotSelection(slots, mask: 0b1010), in: slots) == [1, 3])
        #expect(places(SlotSelection(slots, mask: 0), in: slots) == [])
        #expect(places(SlotSelection(slots, mask: .max), in: slots) == [0, 1, 2, 3], "bits past the last select none")
        #expect(places(SlotSelection(all: slots), in: slots) == [0, 1, 2, 3])
        let many = (0..<33).flatMap { _ in makeSession().slots }
        #expect(many.count == 66)
        #expect(
            places(SlotSelection(many, mask: 1), in: many) == Array(0..<66), "more slots than a mask holds: every one")
    }
}
