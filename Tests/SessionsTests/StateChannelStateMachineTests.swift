import EventLoop
import JSON
import Testing
import ViewModels

@testable import Sessions

/// A renderer the machine only holds and hands back (it never renders).
final class NamedRenderer: StateRenderer {
    let name: String
    init(_ name: String) { self.name = name }
    func json() -> JSONValue { .string(name) }
    func serialize(version: Int, into buffer: inout [UInt8], keepingText: Bool) {
        buffer.append(contentsOf: Array(name.utf8))
    }
}

/// ``StateChannel/StateMachine`` on its own: which version readers see, what is held and when it shows, and
/// the replay ring, with named renderers and one-byte patches (no channel, no subscribers, no loop).
@Suite("State channel: state machine")
@LoopActor
struct StateChannelStateMachineTests {
    typealias Machine = StateChannel.StateMachine
    typealias Visible = Machine.Visible

    let initial = NamedRenderer("v1")

    func makeMachine(patches: Int = 64, bytes: Int = 8192) -> Machine {
        Machine(renderer: initial, version: 1, replay: ReplayLimits(patches: patches, bytes: bytes))
    }

    /// Every version the machine makes visible now, in order.
    func drain(_ machine: inout Machine) -> [Visible] {
        var shown: [Visible] = []
        while let visible = machine.nextVisible() { shown.append(visible) }
        return shown
    }

    func patch(_ version: Int) -> [UInt8] { [UInt8(version)] }

    @Test func aShownChangeBecomesVisibleAtOnceAndIsReplayed() {
        var machine = makeMachine()
        #expect(machine.nextVersion == 2 && drain(&machine).isEmpty, "nothing due before a change")
        let v2 = NamedRenderer("v2")
        #expect(machine.publish(renderer: v2, patch: patch(2), holding: false) == .showVisibleVersions)
        #expect(machine.latestVersion == 2 && machine.version == 1, "not visible before it is handed out")
        #expect(drain(&machine) == [Visible(version: 2, patch: patch(2))])
        #expect(machine.version == 2 && machine.visibleRenderer === v2 && machine.pinned == nil)
        #expect(machine.replay.map(\.version) == [2] && machine.replayBytes == 1)
        #expect(drain(&machine).isEmpty, "handed out once")
    }

    @Test func aHeldChangeStaysInvisibleWithTheOldStatePinnedUntilCommitted() {
        var machine = makeMachine()
        let v2 = NamedRenderer("v2")
        let v3 = NamedRenderer("v3")
        #expect(machine.publish(renderer: v2, patch: patch(2), holding: true) == .none)
        #expect(machine.publish(renderer: v3, patch: patch(3), holding: true) == .none)
        #expect(drain(&machine).isEmpty, "held: nothing visible")
        #expect(machine.version == 1 && machine.latestVersion == 3 && machine.nextVersion == 4)
        #expect(machine.visibleRenderer === initial, "readers keep the committed state")
        #expect(machine.render === v3, "diffs start from the newest")
        #expect(machine.held.map(\.version) == [2, 3] && machine.replay.isEmpty)

        #expect(machine.commit(through: 2) == .showVisibleVersions)
        #expect(drain(&machine) == [Visible(version: 2, patch: patch(2))])
        #expect(machine.version == 2 && machine.visibleRenderer === v2, "v2 pinned while v3 is held")
        #expect(machine.commit(through: 1) == .none)
        #expect(drain(&machine).isEmpty, "an older commit changes nothing")
        #expect(machine.commit(through: 3) == .showVisibleVersions)
        #expect(drain(&machine) == [Visible(version: 3, patch: patch(3))])
        #expect(machine.version == 3 && machine.pinned == nil && machine.visibleRenderer === v3)
        #expect(machine.held.isEmpty && machine.replay.map(\.version) == [2, 3])
    }

    @Test func aShownChangeAfterHeldOnesShowsThemFirstInOrder() {
        var machine = makeMachine()
        let v2 = NamedRenderer("v2")
        let v4 = NamedRenderer("v4")
        #expect(machine.publish(renderer: v2, patch: patch(2), holding: true) == .none)
        #expect(machine.publish(renderer: NamedRenderer("v3"), patch: patch(3), holding: true) == .none)
        #expect(machine.publish(renderer: v4, patch: patch(4), holding: false) == .showVisibleVersions)
        #expect(machine.nextVisible() == Visible(version: 2, patch: patch(2)))
        #expect(machine.version == 2 && machine.visibleRenderer === v2, "each version current as it is shown")
        #expect(machine.nextVisible() == Visible(version: 3, patch: patch(3)))
        #expect(machine.nextVisible() == Visible(version: 4, patch: patch(4)))
        #expect(machine.nextVisible() == nil)
        #expect(machine.version == 4 && machine.visibleRenderer === v4 && machine.held.isEmpty)
    }

    @Test func anUnchangedStateKeepsTheNewRendererOnlyWhenNothingIsHeld() {
        var machine = makeMachine()
        let same = NamedRenderer("same")
        machine.unchanged(renderer: same)
        #expect(machine.render === same && machine.version == 1)

        _ = machine.publish(renderer: NamedRenderer("v2"), patch: patch(2), holding: true)
        let ignored = NamedRenderer("ignored")
        machine.unchanged(renderer: ignored)
        #expect(machine.render !== ignored, "held versions keep their renderer")
    }

    @Test func abandoningDropsTheHeldVersionsAndDiffsFromWhatReadersHave() {
        var machine = makeMachine()
        _ = machine.publish(renderer: NamedRenderer("v2"), patch: patch(2), holding: true)
        _ = machine.publish(renderer: NamedRenderer("v3"), patch: patch(3), holding: true)
        machine.abandon()
        #expect(machine.held.isEmpty && machine.version == 1 && machine.latestVersion == 1)
        #expect(machine.render === initial && machine.pinned == nil)
        #expect(machine.commit(through: 3) == .none)
        #expect(drain(&machine).isEmpty, "nothing dropped ever shows")
        #expect(
            machine.publish(renderer: NamedRenderer("again"), patch: patch(2), holding: false) == .showVisibleVersions)
        #expect(drain(&machine).map(\.version) == [2], "the next change takes the dropped number")

        var empty = makeMachine()
        empty.abandon()
        #expect(empty.render === initial && empty.version == 1, "nothing held: nothing changes")
    }

    @Test func theReplayRingKeepsAtMostItsCountAndBytes() {
        var byCount = makeMachine(patches: 3)
        for version in 2...6 { byCount.remember(version: version, patch: patch(version)) }
        #expect(byCount.replay.map(\.version) == [4, 5, 6] && byCount.replayBytes == 3)

        var byBytes = makeMachine(bytes: 5)
        byBytes.remember(version: 2, patch: [1, 1])
        byBytes.remember(version: 3, patch: [1, 1])
        byBytes.remember(version: 4, patch: [1, 1])
        #expect(byBytes.replay.map(\.version) == [3, 4] && byBytes.replayBytes == 4)
        byBytes.remember(version: 5, patch: [1, 1, 1, 1, 1, 1])
        #expect(byBytes.replay.isEmpty && byBytes.replayBytes == 0, "a patch over the limit alone empties it")

        var none = makeMachine(patches: 0)
        none.remember(version: 2, patch: patch(2))
        #expect(none.replay.isEmpty)
    }

    @Test func patchesAfterAnIDAreThoseTheRingCoversAndNoneFromTheFuture() {
        var machine = makeMachine(patches: 3)
        for version in 2...6 {
            _ = machine.publish(renderer: NamedRenderer("v\(version)"), patch: patch(version), holding: false)
            _ = drain(&machine)
        }
        #expect(machine.patches(after: 6)?.isEmpty == true, "up to date")
        #expect(machine.patches(after: 3)?.map(\.version) == [4, 5, 6])
        #expect(machine.patches(after: 5)?.map(\.patch) == [patch(6)])
        #expect(machine.patches(after: 2) == nil, "no longer covered")
        #expect(machine.patches(after: 7) == nil, "from the future")
        #expect(machine.patches(after: 0) == nil)
    }

    @Test func restoringTheRingKeepsTheRunOfVersionsEndingAtTheCurrentOne() {
        var machine = Machine(renderer: initial, version: 7, replay: ReplayLimits(patches: 3))
        machine.restoreReplay([(2, patch(2)), (4, patch(4)), (5, patch(5)), (6, patch(6)), (7, patch(7))])
        #expect(machine.replay.map(\.version) == [5, 6, 7], "consecutive, at most the capacity")

        var gap = Machine(renderer: initial, version: 7, replay: ReplayLimits(patches: 8))
        gap.restoreReplay([(4, patch(4)), (5, patch(5)), (7, patch(7))])
        #expect(gap.replay.map(\.version) == [7], "a gap ends the run")

        var stale = Machine(renderer: initial, version: 7, replay: ReplayLimits(patches: 8))
        stale.restoreReplay([(5, patch(5)), (6, patch(6))])
        #expect(stale.replay.isEmpty, "nothing ends at the current version")
    }
}
