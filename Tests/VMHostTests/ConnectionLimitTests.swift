import Testing
import VMHostTesting

@Suite("Connection limit")
struct ConnectionLimitTests {
    /// Opens `count` product streams of one session, waiting until the server counts each.
    func openStreams(_ count: Int, session id: String, app: TestApplication) async throws -> [TestEventStream] {
        var streams: [TestEventStream] = []
        for _ in 0..<count {
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/products/events")
            try #require(stream.status == 200)
            #expect(try await stream.next()?.event == "snapshot")
            streams.append(stream)
        }
        return streams
    }

    @Test func aFloodPastTheLimitGets503OverloadedAndServiceRecovers() async throws {
        try await withApp({ $0.maxConnections = 5 }) { app in
            let id = try await app.createSession()
            // The creating request's connection closes; wait until the server has seen it go.
            #expect(await eventually { await app.openConnections() == 0 })
            let streams = try await openStreams(5, session: id, app: app)
            #expect(await app.openConnections() == 5)

            // A flood of 50 connections at once while the limit is reached: every one is refused (health checks
            // and metrics aside: AbuseLimitTests).
            let refused = try await withThrowingTaskGroup(of: TestHTTPResponse.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await TestHTTPClient(port: app.port).get("/v1/sessions/\(id)") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(refused.count == 50)
            for response in refused {
                #expect(response.status == 503)
                #expect(response.errorCode == "overloaded")
                #expect(response.header("Connection")?.lowercased() == "close")
                #expect(response.header("Retry-After") == "1")
            }
            #expect(await eventually { await app.openConnections() == 5 }, "refused connections count until they close")

            // The streams are untouched by the flood: they still get their patches.
            for stream in streams.prefix(3) { stream.close() }
            #expect(await eventually { await app.openConnections() == 2 })
            let monitor = TestHTTPClient(port: app.port)
            #expect(
                try await monitor.post("/v1/sessions/\(id)/products/refresh", headers: [("Prefer", "wait=10")]).status
                    == 200)
            for stream in streams.suffix(2) {
                #expect(try await stream.next()?.event == "patch")
            }
            let metrics = try await monitor.get("/metrics").text
            #expect(metrics.contains("vmhost_open_connections 3"), "two streams and the monitor")
            #expect(metrics.contains(#"vmhost_http_requests_total{route="unmatched",method="GET",status="503"} 50"#))
            for stream in streams.suffix(2) { stream.close() }
        }
    }

    @Test func connectionsThatCloseAreNoLongerCounted() async throws {
        try await withApp({ $0.maxConnections = 20 }) { app in
            let id = try await app.createSession()
            // Twice the limit of connections over time, each closed by the client (streams, keep-alive
            // requests): the count returns to zero every round, so the limit never fills up with the dead.
            for _ in 0..<4 {
                let streams = try await openStreams(5, session: id, app: app)
                let clients = (0..<5).map { _ in TestHTTPClient(port: app.port) }
                for client in clients { #expect(try await client.get("/v1/sessions/\(id)").status == 200) }
                #expect(await app.openConnections() >= 10)
                for stream in streams { stream.close() }
                for client in clients { client.close() }
                #expect(await eventually { await app.openConnections() == 0 })
            }
            #expect(try await TestHTTPClient(port: app.port).get("/healthz").status == 200)
        }
    }
}
