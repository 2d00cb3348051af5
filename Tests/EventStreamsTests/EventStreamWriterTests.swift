import EventLoop
import EventStreams
import Testing
import VMHostTesting

@Suite("Event stream writer")
struct EventStreamWriterTests {
    /// A refused write makes the part stale: its changes are dropped until the drain writes its snapshot, then
    /// they flow again; an unaffected part keeps flowing throughout.
    @Test @LoopActor func aDrainResynchronisesTheStalePart() {
        let sink = FakeEventSink()
        var writer = EventStreamWriter(sink: sink, parts: ["search", "products"])
        var written: [String] = []
        func change(_ part: String) {
            writer.change(part) { sink in
                guard sink.send(Array(part.utf8)) else { return false }
                written.append(part)
                return true
            }
        }
        sink.stall()
        change("search")
        sink.drain(accepting: 1)
        sink.stall()
        change("search")
        #expect(written == [])
        sink.drain()
        writer.drained { part, sink in
            guard sink.send(Array("snapshot".utf8)) else { return false }
            written.append("\(part) snapshot")
            return true
        }
        change("products")
        change("search")
        #expect(written == ["search snapshot", "products", "search"])
    }
}
