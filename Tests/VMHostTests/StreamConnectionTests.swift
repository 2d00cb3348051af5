import Testing
import VMHostTesting

// What happens to a stream's connection when the server ends the stream (here: the session is deleted). A
// stream frees what its request keeps of its head (target, header lists) once its reply has started (it
// would stay for the stream's life); what evhttp reads again at the end, whether to close the connection,
// must survive that.

@Suite("Stream connections")
struct StreamConnectionTests {
    @Test func anHTTP11StreamsConnectionServesTheNextRequestAfterTheStreamEnds() async throws {
        try await withApp { app in
            let connection = try await Self.streamEndedByTheServer(app, version: "HTTP/1.1", headers: [])
            defer { connection.close() }
            try await connection.send(bytes("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(try await connection.response().json == ["status": "ok"])
        }
    }

    @Test func aStreamRequestedWithConnectionCloseClosesItsConnectionWhenItEnds() async throws {
        try await withApp { app in
            let connection = try await Self.streamEndedByTheServer(
                app, version: "HTTP/1.1", headers: ["Connection: close"])
            defer { connection.close() }
            #expect(await connection.closedByPeer(within: .seconds(5)))
        }
    }

    @Test func anHTTP10StreamClosesItsConnectionWhenItEnds() async throws {
        try await withApp { app in
            let connection = try await Self.streamEndedByTheServer(app, version: "HTTP/1.0", headers: [])
            defer { connection.close() }
            #expect(await connection.closedByPeer(within: .seconds(5)))
        }
    }

    /// Opens the search stream of a new session with `version` and `headers`, checks its response head, and
    /// deletes the session, which ends the stream; an HTTP/1.1 stream's body is read to its last chunk (an
    /// HTTP/1.0 one has no chunks: its body ends where the connection does).
    private static func streamEndedByTheServer(
        _ app: TestApplication, version: String, headers: [String]
    ) async throws -> RawConnection {
        let id = try await app.createSession()
        let connection = try await RawConnection.open(port: app.port)
        let extra = headers.map { $0 + "\r\n" }.joined()
        try await connection.send(
            bytes(
                "GET /v1/sessions/\(id)/search/events \(version)\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                    + extra + "\r\n"))
        let head = try await connection.responseHead()
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream")
        #expect(try await app.client.request("DELETE", "/v1/sessions/\(id)").status == 204)
        if version == "HTTP/1.1" {
            while try await connection.nextChunk() != nil {}
        }
        return connection
    }
}
