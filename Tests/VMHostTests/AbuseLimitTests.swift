import JSON
import Testing
import VMHostTesting

// The limits of API.md "Authentication, limits and abuse" that hold for every client (issue 24): each test is
// an attack that worked before them.

@Suite("Limits for everyone")
struct AbuseLimitTests {
    // MARK: Streams per session

    @Test func aNinthStreamOfOneSessionIs429TooManyStreams() async throws {
        try await withApp({ $0.maxStreamsPerSession = 3 }) { app in
            let id = try await app.createSession()
            // One view model's stream and the multiplexed one each count once.
            let paths = ["/v1/sessions/\(id)/search/events", "/v1/sessions/\(id)/events", "/v1/sessions/\(id)/events"]
            var streams: [TestEventStream] = []
            for path in paths {
                let stream = try await TestEventStream(port: app.port, path: path)
                try #require(stream.status == 200)
                streams.append(stream)
            }
            let refused = try await app.client.get("/v1/sessions/\(id)/products/events")
            #expect(refused.status == 429)
            #expect(refused.errorCode == "too_many_streams")
            #expect(refused.header("Retry-After") != nil)
            // Another session is not affected.
            let other = try await app.createSession()
            let otherStream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(other)/events")
            #expect(otherStream.status == 200)
            otherStream.close()
            // A stream that closes frees its place.
            streams.removeFirst().close()
            var reopened: TestEventStream?
            #expect(
                await eventually {
                    guard let stream = try? await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/events"),
                        stream.status == 200
                    else { return false }
                    reopened = stream
                    return true
                })
            reopened?.close()
            for stream in streams { stream.close() }
        }
    }

    // MARK: The connection limit's reserve

    @Test func healthAndMetricsAreAnsweredAtTheConnectionLimit() async throws {
        try await withApp({ $0.maxConnections = 4 }) { app in
            let id = try await app.createSession()
            #expect(await eventually { await app.openConnections() == 0 })
            // Streams of one session take every connection (the attack: 66 streams, maxConnections 60).
            var streams: [TestEventStream] = []
            for _ in 0..<4 {
                let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/events")
                try #require(stream.status == 200)
                streams.append(stream)
            }
            let health = try await TestHTTPClient(port: app.port).get("/healthz")
            #expect(health.status == 200, "\(health.text)")
            let metrics = try await TestHTTPClient(port: app.port).get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("vmhost_open_connections"))
            // Everything else is still refused at the limit.
            let creation = try await TestHTTPClient(port: app.port).post("/v1/sessions")
            #expect(creation.status == 503)
            #expect(creation.errorCode == "overloaded")
            for stream in streams { stream.close() }
        }
    }

    @Test func connectionsCountFromAcceptNotFromTheirFirstRequest() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            #expect(await eventually { await app.openConnections() == 0 })
            // Heads with a body in part, never finished (the attack: 25 such connections counted as 1).
            var connections: [RawConnection] = []
            for _ in 0..<5 {
                let connection = try await RawConnection.open(port: app.port)
                try await connection.send(
                    FramingErrorTests.head(
                        "POST", id: id, ["Content-Type: application/json", "Content-Length: 60000"])
                        + bytes(#"{"text":""#))
                connections.append(connection)
            }
            // And connections that never send a byte.
            for _ in 0..<3 { connections.append(try await RawConnection.open(port: app.port)) }
            #expect(await eventually { await app.openConnections() == 8 })
            for connection in connections { connection.close() }
            #expect(await eventually { await app.openConnections() == 0 })
        }
    }

    // MARK: Bodies

    @Test func aContentLengthOverTheLimitIsAJSON413FromTheHead() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            for length in [65537, 4 * 1024 * 1024, 5_242_880, 1 << 40] {
                let connection = try await RawConnection.open(port: app.port)
                defer { connection.close() }
                // Only the head: the answer comes before any body byte is sent.
                try await connection.send(
                    FramingErrorTests.head(
                        "POST", id: id, ["Content-Type: application/json", "Content-Length: \(length)"]))
                let response = try await connection.response(method: "POST")
                FramingErrorTests.expectAPIError(response, 413, "body_too_large", "65536")
                #expect(response.header("Connection")?.lowercased() == "close")
                #expect(await connection.closedByPeer(within: .seconds(5)))
            }
            #expect(try await app.client.get("/healthz").status == 200)
        }
    }

    @Test func aChunkedBodyIsRefusedOnceItPassesTheLimitNotAtTheReadLimit() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            // 64 KiB and one byte in chunks, then nothing: before, the server waited for up to 4 MiB.
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 16 * 1024)
            var body: [UInt8] = []
            for _ in 0..<4 { body += bytes(String(chunk.count, radix: 16) + "\r\n") + chunk + bytes("\r\n") }
            body += bytes("1\r\n ")
            try await connection.send(
                FramingErrorTests.head(
                    "POST", id: id, ["Content-Type: application/json", "Transfer-Encoding: chunked"])
                    + body)
            FramingErrorTests.expectAPIError(
                try await connection.response(method: "POST"), 413, "body_too_large", "65536")
        }
    }

    // MARK: Framing

    /// What HAProxy refuses and evhttp accepted, leaving a body on the connection as the next request.
    @Test(arguments: [
        ("a space before the colon", "Content-Length : #", "HTTP/1.1", "header name"),
        ("a signed Content-Length", "Content-Length: +#", "HTTP/1.1", "Content-Length"),
        ("an unknown transfer coding", "Transfer-Encoding: xchunked", "HTTP/1.1", "Transfer-Encoding"),
        ("chunked in HTTP/1.0", "Transfer-Encoding: chunked", "HTTP/1.0", "older than HTTP/1.1"),
    ])
    func laxFramingIsA400AndTheBodyIsNeverARequest(
        what: String, line: String, version: String, detail: String
    )
        async throws
    {
        try await withApp { app in
            let id = try await app.createSession()
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            let smuggled = bytes("GET /v1/sessions/\(id) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            // A valid chunked body for evhttp where it reads one (HTTP/1.0); elsewhere the smuggled request alone.
            let chunked = version == "HTTP/1.0"
            let framing = line.split(separator: "#", omittingEmptySubsequences: false).joined(
                separator: "\(smuggled.count)")
            let body =
                chunked
                ? bytes(String(smuggled.count, radix: 16) + "\r\n") + smuggled + bytes("\r\n0\r\n\r\n") : smuggled
            let head = bytes(
                "POST /v1/sessions/\(id)/search/text \(version)\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\n\(framing)\r\n\r\n")
            try await connection.send(head + body)
            let response = try await connection.response(method: "POST")
            FramingErrorTests.expectAPIError(response, 400, "invalid_request", detail)
            #expect(response.header("Connection")?.lowercased() == "close", "\(what)")
            #expect(await connection.responseOrClose(method: "GET") == nil, "\(what): the body is never a request")
        }
    }

    // MARK: Paths

    @Test(arguments: ["/v1/sessions/", "/v1//sessions", "//v1/sessions", "/v1/%73essions", "/v1/sessions%2F"])
    func aPathNotInCanonicalFormIs404(path: String) async throws {
        try await withApp { app in
            let response = try await app.client.post(path)
            #expect(response.status == 404, "\(path): \(response.text)")
            #expect(response.errorCode == "not_found")
            #expect(await app.application.sessions.count == 0, "\(path) created no session")
            #expect(try await app.client.post("/v1/sessions").status == 201)
        }
    }

    @Test func canonicalPathsStillRoute() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            // A reserved character percent-encoded stays a different path, not a canonical variant.
            #expect(try await app.client.get("/v1/sessions/\(id)").status == 200)
            #expect(try await app.client.get("/v1/sessions/\(id)/search").status == 200)
            #expect(try await app.client.get("/v1/sessions/\(id)/search/").status == 404)
            #expect(try await app.client.get("/").status == 200, "the web client's root")
        }
    }

    // MARK: Origin

    @Test func aPostFromAnotherOriginIs403ForbiddenOrigin() async throws {
        try await withApp(via: .router, { $0.allowedOrigins = ["https://app.example.com"] }) { app in
            let evil = try await app.client.post("/v1/sessions", headers: [("Origin", "https://evil.example")])
            #expect(evil.status == 403)
            #expect(evil.errorCode == "forbidden_origin")
            #expect(
                try await app.client.post("/v1/sessions", headers: [("Origin", "null")]).status == 403,
                "a sandboxed page")
            // The server's own origin (its authority is the Host header), an allowed one, and no Origin at all.
            let own = try await app.client.post(
                "/v1/sessions", headers: [("Origin", app.origin)])
            #expect(own.status == 201, "\(own.text)")
            let allowed = try await app.client.post("/v1/sessions", headers: [("Origin", "https://APP.example.com")])
            #expect(allowed.status == 201)
            let id = try #require(allowed.json?["id"]?.stringValue)
            #expect(try await app.client.post("/v1/sessions").status == 201)
            // Commands too; GETs are not checked (a page cannot read another origin's answers anyway).
            let command = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": "cats"], headers: [("Origin", "https://evil.example")])
            #expect(command.status == 403)
            #expect(
                try await app.client.get("/v1/sessions/\(id)", headers: [("Origin", "https://evil.example")]).status
                    == 200)
        }
    }
}
