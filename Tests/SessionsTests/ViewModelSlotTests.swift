import EventLoop
import JSON
import Testing
import VMHostTesting
import ViewModels

@testable import Sessions

/// A slot publishes its view model's typed state: diffed member by member, rendered on demand.
@Suite("View model slots")
@LoopActor
struct ViewModelSlotTests {
    /// Holds every version a slot publishes (a session whose journal has not written them). NB: a slot holds
    /// its holder unowned: the suite keeps it for the test.
    final class HoldingEverything: VersionHolder {
        func slotPublishes(_ bit: UInt64) -> Bool { true }
    }

    let holdingEverything = HoldingEverything()
    let upstream = UnusedUpstream()

    func searchSlot() -> (ViewModelSlot, SearchViewModel) {
        let model = SearchViewModel(service: upstream)
        let registration = ViewModelRegistration(SearchViewModel.self) { SearchViewModel(service: UnusedUpstream()) }
        return (ViewModelSlot.open(model, registration: registration, replay: ReplayLimits(), version: 1), model)
    }

    @Test func aChangeIsOneVersionWithThePatchOfTheMembersItTouched() throws {
        let (slot, model) = searchSlot()
        model.setText("kittens")
        #expect(slot.channel.version == 2)
        #expect(slot.channel.state["searchText"] == "kittens")
        #expect(slot.channel.state["canSearch"] == true)
        #expect(
            String(decoding: try #require(slot.channel.replayedPatches.last?.patch), as: UTF8.self)
                == #"[{"op":"replace","path":"/version","value":2},{"op":"replace","path":"/searchText","value":"kittens"},"#
                + #"{"op":"replace","path":"/canSearch","value":true}]"#)
        #expect(try JSONParser.parse(slot.channel.stateBytes) == slot.channel.state)
    }

    /// A held version must not show through the committed one: the committed state keeps its own content.
    @Test func aHeldVersionStaysInvisibleUntilCommitted() throws {
        let (slot, model) = searchSlot()
        slot.versionHolder = holdingEverything
        let before = slot.channel.stateBytes
        model.setText("kittens")
        #expect(slot.channel.version == 1)
        #expect(slot.channel.latestVersion == 2)
        #expect(slot.channel.state["searchText"] == "")
        #expect(slot.channel.state["version"] == 1)
        #expect(slot.channel.stateBytes == before)
        #expect(slot.channel.heldVersions.last?.state["searchText"] == "kittens")

        model.setText("kittens and cats")
        #expect(slot.channel.state["searchText"] == "", "still version 1 while 2 and 3 are held")
        slot.channel.commit(through: 2)
        #expect(slot.channel.state["searchText"] == "kittens")
        #expect(slot.channel.state["version"] == 2)
        #expect(try JSONParser.parse(slot.channel.stateBytes) == slot.channel.state)
        slot.channel.commit(through: 3)
        #expect(slot.channel.state["searchText"] == "kittens and cats")
        #expect(try JSONParser.parse(slot.channel.stateBytes) == slot.channel.state)
    }

    /// Held versions with a stream open: each one's text (from the kept member text) is its own state's.
    @Test func heldVersionsWithAStreamOpenKeepTheirOwnText() throws {
        let (slot, model) = searchSlot()
        let sink = FakeEventSink()
        slot.channel.subscribe(sink, format: .patches, lastEventID: nil)
        slot.versionHolder = holdingEverything
        for text in ["kit", "kitten", "kittens"] { model.setText(text) }
        for held in slot.channel.heldVersions {
            #expect(try JSONParser.parse(held.stateBytes) == held.state)
        }
        #expect(slot.channel.heldVersions.map { $0.state["searchText"] } == ["kit", "kitten", "kittens"])
        slot.channel.commit(through: 3)
        #expect(try JSONParser.parse(slot.channel.stateBytes) == slot.channel.state)
        #expect(slot.channel.state["searchText"] == "kitten")
        slot.channel.commit(through: 4)
        #expect(slot.channel.stateBytes == slot.channel.state.serializedBytes)
        #expect(slot.channel.state["searchText"] == "kittens")
    }

    /// With a stream open the members' text is kept between versions; what a reader gets is the same either way.
    @Test func keptTextIsTheTextOfEachVersion() throws {
        let (slot, model) = searchSlot()
        let sink = FakeEventSink()
        slot.channel.subscribe(sink, format: .patches, lastEventID: nil)
        for text in ["k", "ki", "kit", "kitten", "kittens", " kittens "] {
            model.setText(text)
            #expect(try JSONParser.parse(slot.channel.stateBytes) == slot.channel.state)
            #expect(slot.channel.stateBytes == slot.channel.state.serializedBytes)
        }
    }
}
