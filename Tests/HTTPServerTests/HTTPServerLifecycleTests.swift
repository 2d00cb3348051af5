import EventLoop
import HTTPServer
import Logging
import Testing
import VMHostTesting

/// What the fixture's handlers share with the test: the open streams, and the deferred requests held until
/// the test releases them.
@LoopActor
final class HandlerState {
    var streams: [ServerSentEventStream] = []
    var heldRequests = 0
    /// The `respond` functions of `GET /called-back` requests not answered yet.
    var callbacks: [@LoopActor (HTTPResponse) -> Void] = []
    /// Tells this server from another that got its port once it stopped listening.
    let token = String(UInt64.random(in: 1...UInt64.max))
    let (released, releaser) = AsyncStream<Void>.makeStream()
}

/// The body of `GET /large`: more than the kernel buffers of a loopback connection hold (a few MB).
let largeBody = [UInt8](repeating: UInt8(ascii: "x"), count: 32 << 20)

/// A server on a loopback port: `GET /hello`, `GET /token` (this server's ``HandlerState/token``), `GET /held`
/// (answered once the test releases it), `GET /called-back` (answered when the test calls its callback),
/// `GET /events` (a stream the test writes to) and `GET /large` (``largeBody``).
@LoopActor
func makeServer(
    _ configuration: HTTPServerConfiguration = HTTPServerConfiguration(port: 0)
) -> (HTTPServer, HandlerState) {
    let state = HandlerState()
    var router = Router()
    router.on(.get, "/hello") { _ in .response(.json(["hello": "world"])) }
    router.on(.get, "/token") { _ in .response(.json(["token": .string(state.token)])) }
    router.on(.get, "/held") { _ in
        state.heldRequests += 1
        return .deferred {
            for await _ in state.released { break }
            return .json(["held": true])
        }
    }
    router.on(.get, "/called-back") { _ in .callback { respond in state.callbacks.append(respond) } }
    // NB: on a connection the sink a handler gets is the connection's ServerSentEventStream.
    router.on(.get, "/events") { _ in
        .stream { sink in
            if let stream = sink as? ServerSentEventStream { state.streams.append(stream) }
        }
    }
    router.on(.get, "/large") { _ in .response(HTTPResponse(status: 200, body: largeBody)) }
    return (HTTPServer(configuration: configuration, router: router, logger: Logger(label: "test")), state)
}

@LoopActor
@Suite("HTTPServer lifecycle")
struct HTTPServerLifecycleTests {
    @Test func startsOnceAndNeverAfterShutdown() async throws {
        let (server, _) = makeServer()
        #expect(server.state == .idle)
        let port = try server.start()
        #expect(server.state == .started && port > 0 && server.port == port)
        #expect(throws: HTTPServerError.alreadyStarted) { try server.start() }
        #expect(try await TestHTTPClient(port: port).get("/hello").json == ["hello": "world"])

        await server.shutdown()
        #expect(server.state == .stopped)
        #expect(throws: HTTPServerError.stopped) { try server.start() }
        await server.shutdown()
        #expect(server.state == .stopped, "a second shutdown changes nothing")
    }

    @Test func aCallbackResultIsAnsweredOnceWhenCalledAndShutdownWaitsForIt() async throws {
        let (server, state) = makeServer()
        let port = try server.start()
        let client = TestHTTPClient(port: port)
        async let first = client.get("/called-back")
        try #require(await eventually { state.callbacks.count == 1 })
        let respond = state.callbacks.removeFirst()
        respond(.json(["answer": 1]))
        respond(.json(["answer": 2]))
        #expect(try await first.json == ["answer": 1], "the first call answers; later calls are ignored")
        #expect(try await client.get("/hello").status == 200, "the server carries on")

        async let second = client.get("/called-back")
        try #require(await eventually { state.callbacks.count == 1 })
        let stopping = Task { await server.shutdown(flushTimeout: .seconds(30)) }
        #expect(await eventually { server.state == .stopping })
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.state == .stopping, "shutdown waits for the callback")
        state.callbacks.removeFirst()(.json(["answer": 3]))
        #expect(try await second.json == ["answer": 3])
        await stopping.value
        #expect(server.state == .stopped)
    }

    @Test func aStreamItsOwnerHoldsBeyondTheServerIsClosedAndRefusesWrites() async throws {
        var server: HTTPServer?
        let state: HandlerState
        do {
            let (created, handlers) = makeServer()
            server = created
            state = handlers
        }
        let port = try server?.start() ?? 0
        let streaming = try await ServerConnection.open(port: port)
        defer { streaming.close() }
        #expect(try await streaming.getHead("/events").header("Content-Type") == "text/event-stream")
        try #require(await eventually { state.streams.count == 1 })
        let stream = state.streams[0]
        var closes = 0
        stream.onClose = { closes += 1 }
        #expect(stream.isOpen && stream.send(Array("data: one\n\n".utf8)))
        #expect(server?.openStreamCount == 1)

        server = nil  // released without a shutdown while the handler state still holds the stream
        #expect(server == nil && !stream.isOpen, "the server closed the stream it left behind")
        #expect(!stream.send(Array("data: two\n\n".utf8)), "a write is refused, never sent through a freed server")
        stream.end()
        #expect(closes == 0 && stream.pendingBytes == 0, "ending it again does nothing")
    }

    /// A stream holds its evhttp request for as long as it is open (hours): once the reply has started, the
    /// request keeps of its head only what evhttp reads again when the stream ends, whether the connection
    /// closes after it. Its target, the other header lines of both sides and its body buffers are gone.
    @Test func aStreamsRequestKeepsOnlyWhetherTheConnectionClosesOnceTheReplyHasStarted() async throws {
        let (server, state) = makeServer()
        let port = try server.start()
        let plain = try await ServerConnection.open(port: port)
        defer { plain.close() }
        let head = try await plain.getHead(
            "/events?since=3", headers: ["Accept: text/event-stream", "User-Agent: vmhost-tests", "X-Extra: 1"])
        #expect(head.header("Content-Type") == "text/event-stream")
        try #require(await eventually { state.streams.count == 1 })
        let closing = try await ServerConnection.open(port: port)
        defer { closing.close() }
        _ = try await closing.getHead("/events", headers: ["Connection: close"])
        try #require(await eventually { state.streams.count == 2 })

        let kept = try #require(state.streams[0].retainedRequestHead)
        #expect(kept.target == nil && kept.requestHeaders == [] && kept.replyHeaders == [] && !kept.hasBuffers)
        let keptClosing = try #require(state.streams[1].retainedRequestHead)
        // NB: evhttp reads either side's `Connection`: the reply keeps its own only when the server closes
        // (draining), not when it echoes the request's.
        #expect(
            keptClosing.target == nil && keptClosing.requestHeaders == ["Connection"]
                && keptClosing.replyHeaders == [] && !keptClosing.hasBuffers)

        // What was kept still works: the stream's connection closes after its end.
        state.streams[1].end()
        #expect(await closing.closedByPeer())
        #expect(state.streams[1].retainedRequestHead == nil)
        await server.shutdown()
    }

    @Test func anIdleServerShutsDownWithoutStarting() async throws {
        let (server, _) = makeServer()
        await server.shutdown()
        #expect(server.state == .stopped)
        #expect(throws: HTTPServerError.stopped) { try server.start() }
    }

    @Test func concurrentShutdownsAllReturnStopped() async throws {
        let (server, _) = makeServer()
        try server.start()
        async let first: Void = server.shutdown()
        async let second: Void = server.shutdown()
        _ = await (first, second)
        #expect(server.state == .stopped)
    }

    @Test func anAddressThatCannotBeBoundLeavesTheServerIdle() async throws {
        let (bad, _) = makeServer(HTTPServerConfiguration(host: "not-an-address", port: 0))
        #expect(throws: HTTPServerError.invalidAddress("not-an-address:0")) { try bad.start() }
        #expect(bad.state == .idle)

        let (first, _) = makeServer()
        let port = try first.start()
        let (second, _) = makeServer(HTTPServerConfiguration(port: port))
        #expect {
            try second.start()
        } throws: { error in
            guard case .cannotListen(let address, _) = error as? HTTPServerError else { return false }
            return address == "127.0.0.1:\(port)"
        }
        #expect(second.state == .idle)
        await first.shutdown()
        await second.shutdown()
    }

    /// Draining: no new connections, idle ones closed, a request in progress answered with `Connection: close`,
    /// open streams going on until shutdown ends them.
    @Test func drainingKeepsStreamsAndFinishesRequestsInProgress() async throws {
        // NB: no keepalive comment may come between the chunks this test expects, however slowly it runs
        // (under ThreadSanitizer it takes over 15 s, the default interval).
        let (server, state) = makeServer(HTTPServerConfiguration(port: 0, keepaliveInterval: .seconds(3600)))
        let port = try server.start()
        let idle = try await ServerConnection.open(port: port)
        defer { idle.close() }
        #expect(try await idle.get("/hello").header("Connection") == nil, "keep-alive before draining")
        let streaming = try await ServerConnection.open(port: port)
        defer { streaming.close() }
        #expect(try await streaming.getHead("/events").header("Content-Type") == "text/event-stream")
        let holding = try await ServerConnection.open(port: port)
        defer { holding.close() }
        async let held = holding.get("/held")
        #expect(await eventually { state.heldRequests == 1 && state.streams.count == 1 })

        server.startDraining()
        #expect(server.state == .draining)
        server.startDraining()
        #expect(server.state == .draining, "draining twice is draining")
        // NB: the port is free once the listener closes: another test's server may bind it at once.
        if let late = try? await ServerConnection.open(port: port) {
            defer { late.close() }
            let served = try? await late.get("/token")
            #expect(served?.json?["token"]?.stringValue != state.token, "no new connections")
        }
        #expect(await idle.closedByPeer(), "an idle keep-alive connection is closed")

        state.releaser.yield()
        let answer = try await held
        #expect(answer.json == ["held": true])
        #expect(answer.header("Connection")?.lowercased() == "close")
        #expect(await holding.closedByPeer())

        let stream = try #require(state.streams.first)
        #expect(stream.isOpen && server.openStreamCount == 1, "streams stay open while draining")
        stream.send(Array("data: still here\n\n".utf8))
        #expect(try await streaming.nextChunk() == Array("data: still here\n\n".utf8))

        await server.shutdown()
        #expect(server.state == .stopped && !stream.isOpen && server.openStreamCount == 0)
        #expect(try await streaming.nextChunk() == nil, "shutdown ends the stream with its final chunk")
    }
}
