import Testing
import VMHost
import VMHostTesting

/// `--redis-url redis://[user]:password@host…`: the journal authenticates (its connection's first command) and the
/// password appears in no log line.
@Suite("Journal on a Redis that requires AUTH", .serialized)
struct RedisAuthTests {
    @Test func theJournalAuthenticatesAndNeverLogsThePassword() async throws {
        let redis = try RedisServerProcess(password: "jour-nal-secret", user: (name: "vmhost", password: "acl-secret"))
        try await redis.start()
        defer { redis.stop() }
        for (url, secret) in [
            (redis.url(database: 1), "jour-nal-secret"),
            ("redis://vmhost:acl-secret@127.0.0.1:\(redis.port)/2", "acl-secret"),
        ] {
            let log = CapturedLog()
            try await withApp(
                {
                    $0.redisURL = url
                    $0.logLevel = .trace
                }, log: log
            ) { app in
                #expect(
                    try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" }, "\(url)")
                let id = try await app.createSession()
                #expect(try await app.client.get("/v1/sessions/\(id)").status == 200)
                #expect(await eventually { (try? redis.keys(database: url.hasSuffix("/1") ? 1 : 2).count) ?? 0 > 0 })
            }
            #expect(log.text.contains("journal configured"))
            #expect(!log.text.contains(secret), "\(log.text)")
        }

        // A wrong password: served from memory, reported, and the password is still not logged.
        let log = CapturedLog()
        try await withApp(
            {
                $0.redisURL = "redis://:wrong-secret@127.0.0.1:\(redis.port)/0"
                $0.redisTimeout = .milliseconds(200)
                $0.logLevel = .trace
            }, log: log
        ) { (app: TestApplication) async throws in
            #expect(try await app.client.get("/healthz").json?["journal"] == "unavailable")
            #expect(try await app.client.post("/v1/sessions").status == 201)
        }
        #expect(!log.text.contains("wrong-secret"))
    }
}
