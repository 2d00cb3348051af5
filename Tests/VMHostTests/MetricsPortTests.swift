import EventLoop
import Testing
import VMHost
import VMHostTesting

/// `--metrics-port N`: `/metrics` on that port only (what others searched shows in the cache counters, so the
/// public port must not tell), the public port answers `404 not_found` for it; without it nothing changes.
@Suite("Metrics on a port of their own")
struct MetricsPortTests {
    @Test func metricsAreServedOnTheirPortOnly() async throws {
        try await withApp({ $0.metricsPort = 0 }) { app in
            let metricsPort = try #require(await app.metricsPort())
            #expect(metricsPort != app.port)

            let hidden = try await app.client.get("/metrics")
            #expect(hidden.status == 404)
            #expect(hidden.json?["error"]?["code"] == "not_found")
            #expect(try await app.client.get("/healthz").status == 200, "the API's port serves the rest")

            let scraper = TestHTTPClient(port: metricsPort)
            let id = try await app.createSession()
            #expect(try await app.client.get("/v1/sessions/\(id)").status == 200)
            let metrics = try await scraper.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(metrics.text.contains("vmhost_sessions 1"), "\(metrics.text.prefix(300))")
            // The metrics port serves nothing else.
            #expect(try await scraper.get("/healthz").status == 404)
            #expect(try await scraper.post("/v1/sessions").status == 404)
            #expect(try await scraper.get("/v1/sessions/\(id)").status == 404)
        }
    }

    @Test func withoutTheSettingMetricsStayOnThePublicPort() async throws {
        try await withApp { app in
            #expect(await app.metricsPort() == nil)
            let metrics = try await app.client.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("vmhost_sessions"))
        }
    }
}

extension TestApplication {
    /// The port of `/metrics` with `--metrics-port`.
    @LoopActor
    func metricsPort() -> Int? { application.metricsPort }
}
