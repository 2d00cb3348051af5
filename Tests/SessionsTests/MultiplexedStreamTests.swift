import EventLoop
import EventStreams
import JSON
import Testing
import VMHostTesting

@testable import Sessions

/// The stream carrying several view models, in memory: state channels writing to a fake sink.
@Suite("Multiplexed streams in memory")
@LoopActor
struct MultiplexedStreamTests {
    let search = StateChannel(name: "search", initial: ["text": ""])
    let products = StateChannel(name: "products", initial: ["page": 0])

    /// Publishes search up to version `searchVersion` and products up to `productsVersion`.
    func advance(search searchVersion: Int, products productsVersion: Int) {
        while search.version < searchVersion { search.publish(["text": .string("t\(search.version)")]) }
        while products.version < productsVersion { products.publish(["page": .int(products.version)]) }
    }

    func open(_ format: StreamFormat = .patches, resumeFrom: String? = nil) -> FakeEventSink {
        let sink = FakeEventSink()
        SessionStream.start(sink, channels: [search, products], format: format, resumeFrom: resumeFrom)
        return sink
    }

    @Test func idsAreParsedLeniently() {
        #expect(MultiplexedEventID.parse("search:5,products:3") == ["search": 5, "products": 3])
        #expect(MultiplexedEventID.parse(" search : 5 ,\tphoto:\t2") == ["search": 5, "photo": 2])
        #expect(MultiplexedEventID.parse("search:x,products,:4,,photo:1:2") == [:])
        #expect(MultiplexedEventID.parse("") == [:])
        #expect(MultiplexedEventID.format([("search", 5), ("products", 0)]) == "search:5,products:0")
    }

    @Test func aNewStreamGetsEverySnapshotThenNamedPatches() throws {
        advance(search: 2, products: 1)
        let sink = open()
        #expect(
            sink.takeEvents() == [
                ReadEvent(retry: 3000),
                ReadEvent(id: "search:2,products:0", event: "search.snapshot", data: #"{"version":2,"text":"t1"}"#),
                ReadEvent(id: "search:2,products:1", event: "products.snapshot", data: #"{"version":1,"page":0}"#),
            ]
        )
        products.publish(["page": 7])
        search.publish(["text": "cats"])
        let events = sink.takeEvents()
        #expect(events.map(\.event) == ["products.patch", "search.patch"])
        #expect(events.map(\.id) == ["search:2,products:2", "search:3,products:2"])
        var client = ClientState(state: ["version": 2, "text": "t1"])
        try client.apply(#require(events.last))
        #expect(client.state == search.state)
    }

    @Test func resumeReplaysEachViewModelsMissedPatches() {
        advance(search: 2, products: 2)
        let live = open()
        _ = live.takeEvents()
        advance(search: 4, products: 3)
        let missed = live.takeEvents()

        let resumed = open(resumeFrom: "search:2,products:2")
        let events = resumed.takeEvents()
        #expect(events.first == ReadEvent(retry: 3000))
        // Same patches; ids differ only in the order the live stream saw the changes.
        #expect(events.dropFirst().map(\.event) == ["search.patch", "search.patch", "products.patch"])
        #expect(events.dropFirst().map(\.id) == ["search:3,products:2", "search:4,products:2", "search:4,products:3"])
        #expect(Set(events.dropFirst().map(\.data)) == Set(missed.map(\.data)))

        let current = open(resumeFrom: "products:3,search:4")
        #expect(current.takeEvents() == [ReadEvent(retry: 3000)])
    }

    @Test func aMissingOrUnknownPartGetsThatViewModelsSnapshot() {
        advance(search: 3, products: 2)
        let sink = open(resumeFrom: "search:2,photo:9")
        let patch = #"[{"op":"replace","path":"/version","value":3},{"op":"replace","path":"/text","value":"t2"}]"#
        #expect(
            sink.takeEvents() == [
                ReadEvent(retry: 3000),
                ReadEvent(id: "search:3,products:0", event: "search.patch", data: patch),
                ReadEvent(id: "search:3,products:2", event: "products.snapshot", data: #"{"version":2,"page":1}"#),
            ]
        )
    }

    @Test func partsOutsideTheRingOrFromTheFutureGetSnapshots() {
        let small = StateChannel(name: "search", initial: ["text": ""], replay: ReplayLimits(patches: 1))
        for text in ["a", "b", "c"] { small.publish(["text": .string(text)]) }
        let sink = FakeEventSink()
        SessionStream.start(sink, channels: [small, products], format: .patches, resumeFrom: "search:2,products:5")
        #expect(sink.takeEvents().dropFirst().map(\.event) == ["search.snapshot", "products.snapshot"])
    }

    @Test func theSnapshotFormatIgnoresResumeAndSendsSnapshots() {
        advance(search: 2, products: 1)
        let sink = open(.snapshots, resumeFrom: "search:1,products:1")
        #expect(sink.takeEvents().dropFirst().map(\.event) == ["search.snapshot", "products.snapshot"])
        search.publish(["text": "x"])
        #expect(
            sink.takeEvents() == [
                ReadEvent(id: "search:3,products:1", event: "search.snapshot", data: #"{"version":3,"text":"x"}"#)
            ]
        )
    }

    @Test func aSlowReaderGetsEachStaleViewModelsSnapshotWhenItDrains() {
        let sink = open()
        _ = sink.takeEvents()
        sink.stall()
        search.publish(["text": "a"])  // refused: search is stale
        products.publish(["page": 1])  // refused: products is stale
        search.publish(["text": "b"])  // dropped
        #expect(sink.takeEvents() == [])

        sink.drain(accepting: 1)  // room for one snapshot: search's; products waits
        #expect(
            sink.takeEvents() == [
                ReadEvent(id: "search:3,products:1", event: "search.snapshot", data: #"{"version":3,"text":"b"}"#)
            ]
        )
        search.publish(["text": "c"])  // refused again
        products.publish(["page": 2])  // dropped: still stale
        sink.drain()
        // NB: the id after search's snapshot still says products:1: its refused snapshot never reached the client.
        #expect(
            sink.takeEvents() == [
                ReadEvent(id: "search:4,products:1", event: "search.snapshot", data: #"{"version":4,"text":"c"}"#),
                ReadEvent(id: "search:4,products:3", event: "products.snapshot", data: #"{"version":3,"page":2}"#),
            ]
        )
        products.publish(["page": 3])
        #expect(sink.takeEvents().map(\.event) == ["products.patch"])
    }

    @Test func aRefusedWriteLeavesTheIdAtWhatTheClientHolds() {
        let sink = open()
        _ = sink.takeEvents()
        sink.acceptedWrites = 1
        products.publish(["page": 1])  // accepted
        search.publish(["text": "a"])  // refused
        products.publish(["page": 2])  // refused: the id must not claim search:2
        sink.drain(accepting: 0)
        sink.acceptedWrites = nil
        search.publish(["text": "z"])  // dropped (stale)
        #expect(sink.takeEvents().map(\.id) == ["search:1,products:2"])
        sink.drain()
        #expect(sink.takeEvents().map(\.id) == ["search:3,products:2", "search:3,products:3"])
    }

    @Test func closingAnyChannelEndsTheStreamOnce() {
        let sink = open()
        #expect(search.subscriberCount == 1 && products.subscriberCount == 1)
        search.close()
        products.close()
        #expect(sink.endCount == 1)
        #expect(search.subscriberCount == 0 && products.subscriberCount == 0)
    }

    @Test func heldVersionsAreSeenOnlyOnceCommitted() {
        let sink = open()
        _ = sink.takeEvents()
        search.publish(["text": "a"], holdUntilCommitted: true)
        search.publish(["text": "b"], holdUntilCommitted: true)
        #expect(sink.takeEvents() == [])
        search.commit(through: 3)
        #expect(sink.takeEvents().map(\.id) == ["search:2,products:1", "search:3,products:1"])
    }
}
