import EventLoop
import JSON
import Testing
import VMHostTesting

@Suite("Sessions and errors over HTTP")
struct SessionAPITests {
    @Test func createGetDeleteSession() async throws {
        try await withApp(via: .router) { app in
            let client = app.client

            let created = try await client.post("/v1/sessions")
            #expect(created.status == 201)
            #expect(created.header("Content-Type") == "application/json")
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(id.utf8.count == 22, "128 random bits, base64url")
            #expect(created.header("Location") == "/v1/sessions/\(id)")
            #expect(created.json?["idleTimeout"] == 1800)
            #expect(created.header("X-Request-ID") != nil)

            let other = try await client.post("/v1/sessions")
            #expect(other.json?["id"]?.stringValue != id)

            let session = try await client.get("/v1/sessions/\(id)")
            #expect(session.status == 200)
            #expect(session.json?["id"] == .string(id))
            #expect(session.json?["products"]?["version"] == 1)
            #expect(session.json?["products"]?["items"] == [])

            let deleted = try await client.request("DELETE", "/v1/sessions/\(id)")
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)

            let gone = try await client.get("/v1/sessions/\(id)")
            #expect(gone.status == 404)
            #expect(gone.errorCode == "session_not_found")
            #expect(try await client.request("DELETE", "/v1/sessions/\(id)").errorCode == "session_not_found")
            #expect(try await client.get("/v1/sessions/\(id)/products").status == 404)
        }
    }

    @Test func errorStatusesAndCodes() async throws {
        try await withApp(via: .router, { $0.maxBodyBytes = 1024 }) { app in
            let client = app.client
            let id = try await app.createSession()

            let notFound = try await client.get("/v1/nothing-here?with=query")
            #expect(notFound.status == 404)
            #expect(notFound.errorCode == "not_found")
            #expect(notFound.json?["error"]?["message"]?.stringValue == "no resource at /v1/nothing-here")
            let notFoundNonASCII = try await client.get("/v1/caf%C3%A9/\u{e9}t\u{e9}")
            #expect(
                notFoundNonASCII.json?["error"]?["message"]?.stringValue == "no resource at /v1/caf%C3%A9/\u{e9}t\u{e9}"
            )

            let wrongMethod = try await client.request("PUT", "/v1/sessions")
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.errorCode == "method_not_allowed")
            #expect(wrongMethod.header("Allow") == "POST")

            let wrongMethodOnSession = try await client.request("POST", "/v1/sessions/\(id)")
            #expect(wrongMethodOnSession.status == 405)
            #expect(wrongMethodOnSession.header("Allow") == "DELETE, GET, HEAD")

            let textBody = try await client.request(
                "POST", "/v1/sessions/\(id)/products/refresh", headers: [("Content-Type", "text/plain")],
                body: Array("refresh".utf8)
            )
            #expect(textBody.status == 415)
            #expect(textBody.errorCode == "unsupported_media_type")

            let tooLarge = try await client.request(
                "POST", "/v1/sessions/\(id)/products/refresh", headers: [("Content-Type", "application/json")],
                body: Array("{\"pad\": \"\(String(repeating: "x", count: 2000))\"}".utf8)
            )
            #expect(tooLarge.status == 413)
            #expect(tooLarge.errorCode == "body_too_large")

            let badJSON = try await client.request(
                "POST", "/v1/sessions/\(id)/products/refresh", headers: [("Content-Type", "application/json")],
                body: Array("{\"unterminated".utf8)
            )
            #expect(badJSON.status == 400)
            #expect(badJSON.errorCode == "invalid_json")

            let disabled = try await client.post("/v1/sessions/\(id)/products/load-more")
            #expect(disabled.status == 409)
            #expect(disabled.errorCode == "command_disabled")
            #expect(disabled.json?["error"]?["message"]?.stringValue?.contains("refresh") == true)

            let unknownSession = try await client.post("/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/products/refresh")
            #expect(unknownSession.status == 404)
            #expect(unknownSession.errorCode == "session_not_found")

            // The server is still fine after all that.
            #expect(try await client.get("/healthz").json == ["status": "ok"])
        }
    }

    @Test func sessionLimitAnswers429() async throws {
        try await withApp(via: .router, { $0.maxSessions = 2 }) { app in
            _ = try await app.createSession()
            let second = try await app.createSession()
            let third = try await app.client.post("/v1/sessions")
            #expect(third.status == 429)
            #expect(third.errorCode == "too_many_sessions")
            #expect(third.header("Retry-After") != nil, "every 429 carries Retry-After")

            #expect(try await app.client.request("DELETE", "/v1/sessions/\(second)").status == 204)
            #expect(try await app.client.post("/v1/sessions").status == 201, "deleting frees a slot")
        }
    }

    // NB: real time on a possibly loaded machine. The timeouts leave seconds of slack so a slow CI
    // runner cannot expire a session between two steps; SessionStoreTests covers the rule exactly.
    @Test func idleSessionsExpire() async throws {
        try await withApp(via: .router, { $0.sessionIdleTimeout = .seconds(2) }) { app in
            let id = try await app.createSession()
            #expect(try await app.client.get("/v1/sessions/\(id)").status == 200)
            // Watch /metrics (which does not touch the session) until the sweep removes it.
            #expect(
                try await eventually(timeout: .seconds(20), every: .milliseconds(200)) {
                    try await app.client.get("/metrics").text.contains("vmhost_sessions 0")
                })
            #expect(try await app.client.get("/v1/sessions/\(id)").errorCode == "session_not_found")
        }
    }

    @Test func anOpenStreamKeepsASessionAlive() async throws {
        // NB: the sessions' clock is moved instead of waited for; only the sweep timer (every 500 ms) is real.
        let time = SessionTime()
        // NB: router mode, so no socket's connect stands between creating the session and opening its stream: the
        // session's 2 s of idleness are real time until the clock moves, and a loaded machine once took longer.
        try await withApp(via: .router, { $0.sessionIdleTimeout = .seconds(2) }, time: time) { app in
            let id = try await app.createSession()
            let stream = try await Self.openStream(app, "/v1/sessions/\(id)/products/events")
            #expect(await stream.status == 200)
            #expect(await stream.takeEvents().last?.event == "snapshot")
            let idle = try await app.createSession()
            // An hour passes: the session without a stream expires at the next sweep, the one with a stream not.
            await time.advance(by: .seconds(3600))
            #expect(
                try await eventually(timeout: .seconds(20), every: .milliseconds(100)) {
                    try await app.client.get("/metrics").text.contains("vmhost_sessions 1")
                })
            #expect(try await app.client.get("/v1/sessions/\(idle)").errorCode == "session_not_found")
            #expect(try await app.client.get("/v1/sessions/\(id)").status == 200)
            await stream.close()
        }
    }

    /// An event stream of the application in process (on a socket too with `VMHOST_ROUTER_TESTS_LIVE=1`: the
    /// in-process server then serves the same sessions).
    @LoopActor
    static func openStream(_ app: TestApplication, _ path: String) async throws -> InProcessEventStream {
        try await InProcessClient(server: app.inProcess ?? app.application.makeInProcessServer()).openStream(path)
    }

    @Test func healthAndMetrics() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: [("Prefer", "wait=5")])

            let health = try await app.client.get("/healthz")
            #expect(health.status == 200)
            #expect(health.json == ["status": "ok"])

            let metrics = try await app.client.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            let text = metrics.text
            #expect(text.contains("vmhost_sessions 1"))
            #expect(text.contains("vmhost_open_streams 0"))
            #expect(text.contains(#"vmhost_http_requests_total{route="/v1/sessions",method="POST",status="201"} 1"#))
            #expect(text.contains(#"vmhost_upstream_requests_total{service="products",outcome="success"} 1"#))
            #expect(text.contains("vmhost_http_request_duration_seconds_bucket"))
            #expect(text.contains("vmhost_upstream_request_duration_seconds_bucket"))
        }
    }
}
