import CLibevent
import EventLoop
import HTTPServer
import Testing
import VMHostTesting

/// Replies and stream writes go out at the end of the loop turn that made them (``OutputFlusher``), instead of
/// when the loop next finds each socket writable.
@LoopActor
@Suite("Output written at the end of the loop turn")
struct OutputFlusherTests {
    /// A reply the socket takes whole is written at the end of its turn, and the connection then serves its next
    /// request; one larger than the socket takes goes on with the bufferevent's own writes, whole.
    @Test func repliesGoOutAtTheEndOfTheirTurnAndALargeOneFinishesLater() async throws {
        let (server, _) = makeServer()
        let port = try server.start()
        let client = try await ServerConnection.open(port: port)
        defer { client.close() }
        for expected in 1...3 {
            #expect(try await client.get("/hello").json == ["hello": "world"])
            #expect(server.flusher.writtenWhole == expected)
        }

        let large = try await client.get("/large")
        #expect(large.body.count == largeBody.count && large.body == largeBody)
        #expect(server.flusher.writtenWhole == 3, "32 MB do not fit the socket: the rest went as it drained")
        #expect(try await client.get("/hello").json == ["hello": "world"], "and the connection goes on")
        #expect(server.flusher.writtenWhole == 4)
        await server.shutdown()
    }

    /// A stream's writes go into its connection's output and out at the end of the turn, without evhttp: the
    /// socket's write event is never enabled for them (evhttp's write enables it, and it costs two `epoll_ctl`
    /// calls a write), and nothing waits once the turn has ended.
    @Test func aStreamsWritesGoOutAtTheEndOfTheTurnWithoutTheSocketsWriteEvent() async throws {
        let (server, state) = makeServer(HTTPServerConfiguration(port: 0, keepaliveInterval: .seconds(3600)))
        let port = try server.start()
        let client = try await ServerConnection.open(port: port)
        defer { client.close() }
        #expect(try await client.getHead("/events").header("Content-Type") == "text/event-stream")
        try #require(await eventually { state.streams.count == 1 })
        let stream = state.streams[0]
        #expect(stream.pendingBytes == 0 && !stream.writeEventEnabled, "the reply's head went at its turn's end")
        let written = server.flusher.writtenWhole

        #expect(stream.send(Array("data: one\n\n".utf8)) && stream.send(Array("data: two\n\n".utf8)))
        #expect(stream.pendingBytes == 2 * (3 + 11 + 2) && !stream.writeEventEnabled, "queued for the turn's end")
        #expect(try await client.nextChunk() == Array("data: one\n\n".utf8))
        #expect(try await client.nextChunk() == Array("data: two\n\n".utf8))
        #expect(stream.pendingBytes == 0 && !stream.writeEventEnabled)
        #expect(server.flusher.writtenWhole == written + 1, "both writes of the turn went in one")
        await server.shutdown()
    }

    /// What a stalled reader's socket does not take of a stream's write waits for the socket's write event, which
    /// the end of the turn enables (bytes put in the output without evhttp enable nothing): the reader gets the
    /// rest as it reads, with no further write to carry it.
    @Test func whatAStalledReadersSocketDoesNotTakeGoesAsItReads() async throws {
        let (server, state) = makeServer(
            HTTPServerConfiguration(port: 0, keepaliveInterval: .seconds(3600), streamMaxPendingBytes: 64 << 20))
        let port = try server.start()
        let client = try await ServerConnection.open(port: port, receiveBufferBytes: 4096)
        defer { client.close() }
        _ = try await client.getHead("/events")
        try #require(await eventually { state.streams.count == 1 })
        let stream = state.streams[0]
        let event = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 16 << 20) + Array("\n\n".utf8)

        #expect(stream.send(event))
        try #require(await eventually { stream.writeEventEnabled }, "16 MB do not fit the sockets: the rest waits")
        #expect(stream.pendingBytes > 0)
        #expect(try await client.nextChunk() == event)
        #expect(await eventually { stream.pendingBytes == 0 })
        await server.shutdown()
    }

    /// A drain is told once, when the output a write asked about has gone: evhttp keeps the drain callback set,
    /// and the writes after it, which go straight into the output, must not hear it again at every drain.
    @Test func aDrainIsToldOnceNotAtEveryLaterWrite() async throws {
        let (server, state) = makeServer(
            HTTPServerConfiguration(port: 0, keepaliveInterval: .seconds(3600), streamMaxPendingBytes: 64 * 1024))
        let port = try server.start()
        let client = try await ServerConnection.open(port: port)
        defer { client.close() }
        _ = try await client.getHead("/events")
        try #require(await eventually { state.streams.count == 1 })
        let stream = state.streams[0]
        var drains = 0
        stream.onDrain = { drains += 1 }

        // More than half the bound at once: the write asks to hear about the drain.
        let large = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: 40 * 1024) + Array("\n\n".utf8)
        #expect(stream.send(large))
        #expect(try await client.nextChunk() == large)
        #expect(await eventually { drains == 1 }, "told once its output drained")

        for round in 1...3 {
            #expect(stream.send(Array("data: \(round)\n\n".utf8)))
            #expect(try await client.nextChunk() == Array("data: \(round)\n\n".utf8))
        }
        #expect(await eventually { stream.pendingBytes == 0 })
        #expect(drains == 1, "the small writes after it drained without telling it again")
        await server.shutdown()
    }

    /// A `HEAD` request's stream sends no body: its writes go through evhttp, which drops them, not straight into
    /// the connection's output; the connection's next answer is the next request's.
    @Test func aHeadRequestsStreamWritesNoBody() async throws {
        let (server, state) = makeServer(HTTPServerConfiguration(port: 0, keepaliveInterval: .seconds(3600)))
        let port = try server.start()
        let client = try await ServerConnection.open(port: port)
        defer { client.close() }
        #expect(try await client.getHead("/events", method: "HEAD").header("Content-Type") == "text/event-stream")
        try #require(await eventually { state.streams.count == 1 })
        let stream = state.streams[0]

        #expect(stream.send(Array("data: one\n\n".utf8)))
        #expect(stream.pendingBytes == 0, "nothing queued")
        stream.end()
        #expect(try await client.get("/hello").json == ["hello": "world"])
        await server.shutdown()
    }
}
