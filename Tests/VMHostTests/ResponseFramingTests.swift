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
            try await connection.send(bytes("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            let health = try await connection.response()
            #expect(health.header("Content-Length") == "\(health.body.count)")
            #expect(health.json == ["status": "ok"])
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
            try await connection.send(bytes("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"))
            #expect(try await connection.response().json == ["status": "ok"])
        }
    }

    @Test func anHTTP10ReplyHasALengthOnlyWhenTheConnectionIsKeptAlive() async throws {
        try await withApp { app in
            let kept = try await RawConnection.open(port: app.port)
            defer { kept.close() }
            try await kept.send(bytes("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
            let first = try await kept.response()
            #expect(first.header("Content-Length") == "\(first.body.count)")
            #expect(first.json == ["status": "ok"])

            let closed = try await RawConnection.open(port: app.port)
            defer { closed.close() }
            try await closed.send(bytes("GET /healthz HTTP/1.0\r\n\r\n"))
            let only = try await closed.response()
            #expect(only.header("Content-Length") == nil)
            #expect(only.json == ["status": "ok"], "the body ends where the connection does")
        }
    }
}
