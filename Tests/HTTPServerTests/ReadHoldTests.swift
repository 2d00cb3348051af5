import EventLoop
import HTTPServer
import Testing
import VMHostTesting

/// A request answered in a later turn (a callback result: a command waiting for the journal) keeps its socket
/// registered for reading with a read hold (`vmh_read_hold_new`); these check what the hold must never change: the
/// connection carries on, a request sent meanwhile is answered in order, and a client that leaves while its
/// answer waits leaves nothing behind that a later connection on the same descriptor would trip over.
@LoopActor
@Suite("HTTPServer: read holds of answers given later")
struct ReadHoldTests {
    @Test func aConnectionCarriesOnAcrossAnswersGivenLater() async throws {
        let (server, state) = makeServer()
        let port = try server.start()
        let connection = try await ServerConnection.open(port: port)
        defer { connection.close() }
        for round in 1...3 {
            try await connection.send("/called-back")
            try #require(await eventually { state.callbacks.count == 1 })
            state.callbacks.removeFirst()(.json(["round": .int(round)]))
            #expect(try await connection.readResponse().json == ["round": .int(round)])
            #expect(try await connection.get("/hello").status == 200, "answered at once after a held one")
        }
        await server.shutdown()
    }

    @Test func aRequestSentWhileTheAnswerWaitsIsAnsweredAfterIt() async throws {
        let (server, state) = makeServer()
        let port = try server.start()
        let connection = try await ServerConnection.open(port: port)
        defer { connection.close() }
        try await connection.send("/called-back")
        try #require(await eventually { state.callbacks.count == 1 })
        // Pipelined: the bytes arrive while the hold is registered (it fires once and is gone).
        try await connection.send("/hello")
        try await Task.sleep(for: .milliseconds(50))
        #expect(state.callbacks.count == 1, "the next request waits for the answer")
        state.callbacks.removeFirst()(.json(["first": true]))
        #expect(try await connection.readResponse().json == ["first": true])
        #expect(try await connection.readResponse().json == ["hello": "world"])
        await server.shutdown()
    }

    @Test func aClientLeavingWhileItsAnswerWaitsLeavesLaterConnectionsReading() async throws {
        let (server, state) = makeServer()
        let port = try server.start()
        for _ in 0..<5 {
            let leaving = try await ServerConnection.open(port: port)
            try await leaving.send("/called-back")
            try #require(await eventually { state.callbacks.count == 1 })
            leaving.close()
            // The answer goes to a closed socket: evhttp closes the connection (its hold released first).
            state.callbacks.removeFirst()(.json(["late": true]))
            #expect(await eventually { server.openConnectionCount == 0 })
            // New connections take the freed descriptor numbers: each must still be read.
            for _ in 0..<3 {
                let next = try await ServerConnection.open(port: port)
                #expect(try await next.get("/hello").json == ["hello": "world"])
                next.close()
            }
        }
        await server.shutdown()
    }

    @Test func aServerGoingAwayWithAnAnswerStillWaitingReleasesItsHold() async throws {
        var server: HTTPServer?
        let state: HandlerState
        (server, state) = makeServer()
        let port = try #require(try server?.start())
        let connection = try await ServerConnection.open(port: port)
        defer { connection.close() }
        try await connection.send("/called-back")
        try #require(await eventually { state.callbacks.count == 1 })
        await server?.shutdown(flushTimeout: .milliseconds(10))
        // NB: the deinit frees evhttp, which closes the socket: the hold goes first (checked by the sanitizers).
        server = nil
        state.callbacks.removeAll()
        #expect(await connection.closedByPeer(), "the connection closed with the server")
        let (another, _) = makeServer()
        let anotherPort = try another.start()
        #expect(try await TestHTTPClient(port: anotherPort).get("/hello").status == 200)
        await another.shutdown()
    }
}
