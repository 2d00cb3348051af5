import Testing
import VMHostTesting

// Where a response says how long its body is. vmhost writes `Content-Length` itself for the replies evhttp
// would give one (evhttp's own costs an `snprintf` per reply); these pin that the header is where evhttp put
// it, and only there.

@Suite("Response framing")
struct ResponseFramingTests {
    @Test func anHTTP11ReplyWithABodyCarriesItsLength() async throws {
        try await withApp { app in
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            let health = try await Self.health(on: connection, "HTTP/1.1\r\nHost: 127.0.0.1")
            #expect(health.header("Content-Length") == "\(health.body.count)")
            // An error's body too, on the same connection.
            try await connection.send(bytes("GET /v1/nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let missing = try await connection.response()
            #expect(missing.status == 404)
            #expect(missing.header("Content-Length") == "\(missing.body.count)")
            #expect(missing.body.count > 0)
        }
    }

    @Test func noContentAndHeadRepliesCarryNoLength() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            try await connection.send(bytes("HEAD /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let head = try await connection.response(method: "HEAD")
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == nil)
            try await connection.send(bytes("DELETE /v1/sessions/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let deleted = try await connection.response(method: "DELETE")
            #expect(deleted.status == 204)
            #expect(deleted.header("Content-Length") == nil)
            // The connection still frames correctly after both.
            _ = try await Self.health(on: connection, "HTTP/1.1\r\nHost: 127.0.0.1")
        }
    }

    @Test func anHTTP10ReplyHasALengthOnlyWhenTheConnectionIsKeptAlive() async throws {
        try await withApp { app in
            let kept = try await RawConnection.open(port: app.port)
            defer { kept.close() }
            let first = try await Self.health(on: kept, "HTTP/1.0\r\nConnection: keep-alive")
            #expect(first.header("Content-Length") == "\(first.body.count)")

            let closed = try await RawConnection.open(port: app.port)
            defer { closed.close() }
            // NB: without a length, the body ends where the connection does.
            let only = try await Self.health(on: closed, "HTTP/1.0")
            #expect(only.header("Content-Length") == nil)
        }
    }

    /// `GET /healthz` on `connection` with the version and header lines of `rest`; checks the body it answers.
    private static func health(on connection: RawConnection, _ rest: String) async throws -> TestHTTPResponse {
        try await connection.send(bytes("GET /healthz \(rest)\r\n\r\n"))
        let response = try await connection.response()
        #expect(response.json == ["status": "ok"])
        return response
    }
}
