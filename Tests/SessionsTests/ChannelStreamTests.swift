import EventLoop
import EventStreams
import JSON
import JSONPatch
import Sessions
import Testing
import VMHostTesting
import ViewModels

/// A renderer of `{"count": N}` that counts how often it serialises the state.
final class CountingRenderer: StateRenderer {
    let count: Int
    private(set) var serialisations = 0
    init(count: Int) { self.count = count }
    func json() -> JSONValue { ["count": .int(count)] }
    func serialize(version: Int, into buffer: inout [UInt8], keepingText: Bool) {
        serialisations += 1
        buffer.append(contentsOf: Array(#"{"version":\#(version),"count":\#(count)}"#.utf8))
    }
}

/// The single-channel stream in memory: a state channel writing to a fake sink, no socket.
@Suite("State channel streams in memory")
@LoopActor
struct ChannelStreamTests {
    /// A channel whose state is `{"count": N}`, published up to `count`.
    func counter(upTo count: Int = 0, replayCapacity: Int = 64) -> StateChannel {
        let channel = StateChannel(
            name: "counter", initial: ["count": 0], replay: ReplayLimits(patches: replayCapacity))
        for value in stride(from: 1, through: count, by: 1) { channel.publish(["count": .int(value)]) }
        return channel
    }

    func snapshot(_ id: Int, count: Int) -> ReadEvent {
        ReadEvent(id: "\(id)", event: "snapshot", data: #"{"version":\#(id),"count":\#(count)}"#)
    }

    @Test func aSnapshotFirstThenPatchesInOrder() throws {
        let channel = counter()
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: nil)
        #expect(sink.takeEvents() == [ReadEvent(retry: 3000), snapshot(1, count: 0)])

        channel.publish(["count": 1])
        channel.publish(["count": 1])  // unchanged: no version, no event
        channel.publish(["count": 2])
        let patches = sink.takeEvents()
        #expect(patches.map(\.id) == ["2", "3"])
        #expect(patches.allSatisfy { $0.event == "patch" })
        var client = ClientState(state: try snapshot(1, count: 0).json())
        for patch in patches { try client.apply(patch) }
        #expect(client.state == channel.state)
        #expect(channel.state == ["version": 3, "count": 2])
    }

    /// A stream's observer that goes away while the sink stays open (its channel dropped without closing) takes
    /// its drain callback back: a later drain calls nothing that is gone.
    @Test func anObserverThatGoesAwayTakesItsDrainCallbackBack() {
        let sink = FakeEventSink()
        var channel: StateChannel? = counter()
        channel?.subscribe(sink, format: .patches, lastEventID: nil)
        #expect(sink.onDrain != nil)
        channel = nil
        #expect(sink.onDrain == nil)
        sink.drain()
        #expect(sink.isOpen)
    }

    @Test func everyStreamGetsTheSameFramedPatch() {
        let channel = counter()
        let first = FakeEventSink()
        let second = FakeEventSink()
        channel.subscribe(first, format: .patches, lastEventID: nil)
        channel.subscribe(second, format: .patches, lastEventID: nil)
        channel.publish(["count": 1])
        #expect(first.chunks.count == 1)
        #expect(first.chunks.first.map(ObjectIdentifier.init) == second.chunks.first.map(ObjectIdentifier.init))
    }

    @Test func resumeWithinTheRingReplaysExactlyTheMissedPatches() throws {
        let channel = counter()
        let live = FakeEventSink()
        channel.subscribe(live, format: .patches, lastEventID: nil)
        for value in 1...4 { channel.publish(["count": .int(value)]) }
        let livePatches = live.takeEvents().dropFirst(2)  // retry, snapshot
        #expect(livePatches.map(\.id) == ["2", "3", "4", "5"])

        let resumed = FakeEventSink()
        channel.subscribe(resumed, format: .patches, lastEventID: 3)
        #expect(resumed.takeEvents() == [ReadEvent(retry: 3000)] + livePatches.suffix(2))

        let current = FakeEventSink()
        channel.subscribe(current, format: .patches, lastEventID: 5)
        #expect(current.takeEvents() == [ReadEvent(retry: 3000)])
        channel.publish(["count": 5])
        #expect(current.takeEvents().map(\.id) == ["6"])
    }

    @Test(arguments: [1, 2, 0, -4])
    func resumeOutsideTheRingGetsASnapshot(lastEventID: Int) {
        // Versions 1...6; the ring keeps the patches to 5 and 6 only.
        let channel = counter(upTo: 5, replayCapacity: 2)
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: lastEventID)
        #expect(sink.takeEvents() == [ReadEvent(retry: 3000), snapshot(6, count: 5)])
    }

    @Test func theOldestIdStillInTheRingResumes() {
        let channel = counter(upTo: 5, replayCapacity: 2)
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: 4)
        #expect(sink.takeEvents().compactMap(\.id) == ["5", "6"])
    }

    @Test func theRingKeepsNoMoreBytesThanItsLimit() throws {
        // Each counter patch is 89 bytes: a 200-byte ring holds two.
        let channel = StateChannel(name: "counter", initial: ["count": 0], replay: ReplayLimits(bytes: 200))
        for value in 1...5 { channel.publish(["count": .int(value)]) }
        #expect(channel.replayedPatches.map(\.version) == [5, 6])
        #expect(channel.replayedPatches.allSatisfy { $0.patch.count == 89 })
        let resumed = FakeEventSink()
        channel.subscribe(resumed, format: .patches, lastEventID: 4)
        #expect(resumed.takeEvents().compactMap(\.id) == ["5", "6"])
        let tooOld = FakeEventSink()
        channel.subscribe(tooOld, format: .patches, lastEventID: 3)
        #expect(tooOld.takeEvents() == [ReadEvent(retry: 3000), snapshot(6, count: 5)])

        // A patch larger than the whole ring empties it: a snapshot is smaller than replaying it.
        channel.publish(["count": 6, "note": .string(String(repeating: "x", count: 300))])
        #expect(channel.replayedPatches.isEmpty)
        let beforeIt = FakeEventSink()
        channel.subscribe(beforeIt, format: .patches, lastEventID: 6)
        #expect(beforeIt.takeEvents().map(\.event) == [nil, "snapshot"])
        channel.publish(["count": 7, "note": "short"])
        #expect(channel.replayedPatches.map(\.version) == [8])
    }

    @Test(arguments: [7, 1_000])
    func anIdFromTheFutureGetsASnapshot(lastEventID: Int) {
        let channel = counter(upTo: 5)
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: lastEventID)
        #expect(sink.takeEvents() == [ReadEvent(retry: 3000), snapshot(6, count: 5)])
    }

    @Test func theSnapshotFormatNeverSendsPatches() {
        let channel = counter(upTo: 3)
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .snapshots, lastEventID: 2)
        channel.publish(["count": 9])
        #expect(sink.takeEvents() == [ReadEvent(retry: 3000), snapshot(4, count: 3), snapshot(5, count: 9)])
    }

    @Test func aSlowReaderLosesPatchesAndGetsASnapshotWhenItDrains() {
        let channel = counter()
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: nil)
        channel.publish(["count": 1])
        #expect(sink.takeEvents().compactMap(\.id) == ["1", "2"])

        sink.stall()
        channel.publish(["count": 2])  // refused
        let attempts = sink.writeAttempts
        channel.publish(["count": 3])
        channel.publish(["count": 4])
        #expect(sink.writeAttempts == attempts, "changes after a refused write are dropped, not offered")
        #expect(sink.takeEvents() == [])

        sink.drain(accepting: 0)  // still too slow for the snapshot: it waits for the next drain
        #expect(sink.takeEvents() == [])
        channel.publish(["count": 5])
        #expect(sink.takeEvents() == [])

        sink.drain()
        #expect(sink.takeEvents() == [snapshot(6, count: 5)])
        channel.publish(["count": 6])
        #expect(sink.takeEvents().map(\.id) == ["7"])
        sink.drain()  // a drain with nothing stale writes nothing
        #expect(sink.takeEvents() == [])
    }

    @Test func closingTheChannelEndsItsStreams() {
        let channel = counter()
        let sinks = [FakeEventSink(), FakeEventSink()]
        channel.subscribe(sinks[0], format: .patches, lastEventID: nil)
        channel.subscribe(sinks[1], format: .snapshots, lastEventID: nil)
        #expect(channel.subscriberCount == 2)
        channel.close()
        #expect(sinks.map(\.endCount) == [1, 1])
        #expect(channel.subscriberCount == 0)
    }

    @Test func aClientGoingAwayDetachesItsStream() {
        let channel = counter()
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: nil)
        sink.clientCloses()
        #expect(channel.subscriberCount == 0)
        let attempts = sink.writeAttempts
        channel.publish(["count": 1])
        #expect(sink.writeAttempts == attempts)
    }

    /// A held version's state is serialised when it is read (a checkpoint's write; the command's answer once
    /// committed), not when it is published: its text would stay in memory until the journal answered.
    @Test func aHeldVersionIsSerialisedOnlyWhenRead() throws {
        let channel = counter()
        let two = CountingRenderer(count: 2)
        channel.publish(
            [.replace(path: JSONPointer(tokens: ["count"]), value: .int(2))], renderer: two, holdUntilCommitted: true)
        #expect(two.serialisations == 0)
        #expect(channel.stateBytes == Array(#"{"version":1,"count":0}"#.utf8), "readers see the committed state")
        let held = try #require(channel.heldVersions.last)
        #expect(held.stateBytes == Array(#"{"version":2,"count":2}"#.utf8))
        #expect(two.serialisations == 1)
        channel.commit(through: 2)
        #expect(two.serialisations == 1, "committing serialises nothing")
        #expect(channel.stateBytes == Array(#"{"version":2,"count":2}"#.utf8))
        #expect(two.serialisations == 2)
    }

    @Test func heldVersionsReachNoReaderUntilCommittedThenInOrder() throws {
        let channel = counter()
        let sink = FakeEventSink()
        channel.subscribe(sink, format: .patches, lastEventID: nil)
        _ = sink.takeEvents()

        channel.publish(["count": 1], holdUntilCommitted: true)
        channel.publish(["count": 2], holdUntilCommitted: true)
        channel.publish(["count": 3], holdUntilCommitted: true)
        #expect(sink.takeEvents() == [])
        #expect(channel.version == 1)
        #expect(channel.latestVersion == 4)
        #expect(channel.state == ["version": 1, "count": 0])
        let late = FakeEventSink()
        channel.subscribe(late, format: .patches, lastEventID: nil)
        #expect(late.takeEvents() == [ReadEvent(retry: 3000), snapshot(1, count: 0)])

        channel.commit(through: 2)
        #expect(sink.takeEvents().map(\.id) == ["2"])
        // A version published without holding goes out after everything held before it.
        channel.publish(["count": 4])
        let rest = sink.takeEvents()
        #expect(rest.map(\.id) == ["3", "4", "5"])
        var client = ClientState(state: try snapshot(1, count: 0).json())
        for patch in try [#require(late.takeEvents().first)] + rest {
            try client.apply(patch)
        }
        #expect(client.state == ["version": 5, "count": 4])
    }
}
