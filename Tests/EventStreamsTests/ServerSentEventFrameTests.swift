import EventLoop
import EventStreams
import Testing
import VMHostTesting

@Suite("Server-sent event framing")
struct ServerSentEventFrameTests {
    @Test func anEventIsIdEventAndDataEndedByABlankLine() {
        let named = ServerSentEventFrame.event("search.patch", id: "search:4,products:3", data: Array("[1]".utf8))
        #expect(String(decoding: named, as: UTF8.self) == "id: search:4,products:3\nevent: search.patch\ndata: [1]\n\n")
        let numbered = ServerSentEventFrame.event("snapshot", id: 1_234_567, data: Array("{}".utf8))
        #expect(String(decoding: numbered, as: UTF8.self) == "id: 1234567\nevent: snapshot\ndata: {}\n\n")
        #expect(String(decoding: ServerSentEventFrame.retry(milliseconds: 3000), as: UTF8.self) == "retry: 3000\n")
    }

    /// What the server frames, an EventSource-style reader reads back field for field.
    @Test @LoopActor func aReaderReadsBackWhatWasFramed() throws {
        let sink = FakeEventSink()
        sink.send(ServerSentEventFrame.retry(milliseconds: 2500))
        sink.send(ServerSentEventFrame.event("snapshot", id: 1, data: Array(#"{"version":1}"#.utf8)))
        sink.send(ServerSentEventChunk(ServerSentEventFrame.event("patch", id: 2, data: Array("[]".utf8))))
        #expect(
            sink.takeEvents() == [
                ReadEvent(retry: 2500),
                ReadEvent(id: "1", event: "snapshot", data: #"{"version":1}"#),
                ReadEvent(id: "2", event: "patch", data: "[]"),
            ])
        #expect(sink.chunks.count == 1)
    }
}
