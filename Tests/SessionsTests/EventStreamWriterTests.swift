import EventLoop
import EventStreams
import Testing

@Suite("Event stream writer")
struct EventStreamWriterTests {
    /// A refused write makes the part stale; the sink's drain writes its snapshot, then changes flow again.
    @Test @LoopActor func aDrainResynchronisesTheStalePart() {
        let sink = FakeEventSink()
        var snapshots = 0
        let writer = EventStreamWriter(sink: sink, parts: ["search"]) { _ in
            snapshots += 1
            return sink.send(Array("snapshot".utf8))
        }
        sink.stall()
        writer.change("search") { sink.send(Array("patch".utf8)) }
        var written = 0
        writer.change("search") {
            written += 1
            return true
        }
        #expect(written == 0)
        sink.drain()
        #expect(snapshots == 1)
        writer.change("search") {
            written += 1
            return true
        }
        #expect(written == 1)
    }

    /// The sink holds its writer's drain callback only while the writer exists: a writer that goes away takes it
    /// back, so a later drain calls nothing.
    @Test @LoopActor func aWriterThatGoesAwayTakesItsDrainCallbackBack() {
        let sink = FakeEventSink()
        var snapshots = 0
        var writer: EventStreamWriter? = EventStreamWriter(sink: sink, parts: ["search"]) { _ in
            snapshots += 1
            return true
        }
        sink.stall()
        writer?.change("search") { sink.send(Array("patch".utf8)) }
        #expect(sink.onDrain != nil)
        writer = nil
        #expect(sink.onDrain == nil)
        sink.drain()
        #expect(snapshots == 0)
    }
}
