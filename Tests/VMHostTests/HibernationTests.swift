import FakeUpstream
import JSON
import Sessions
import Testing
import VMHost
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Hibernation on a real `redis-server` with real servers on loopback ports: an idle session leaves memory, lives
/// on in Redis, and its next request (on this application or another) takes it back with the same state and
/// versions. Session activity runs on a ``TestClock`` the test moves, so a session is due without waiting.
@Suite("Journal: hibernation", .serialized)
struct HibernationTests {
    static let wait = [("Prefer", "wait=10")]

    /// An application on `redis` hibernating after 1 s of the session clock `time` (sweeps every 250 ms).
    /// `and` changes what a test needs beyond that.
    static func configure(
        _ redis: RedisServerProcess, node: String, idleTimeout: Duration = .seconds(1800),
        and extra: @escaping (inout VMHostConfiguration) -> Void = { _ in }
    ) -> (inout VMHostConfiguration) -> Void {
        { configuration in
            configuration.redisURL = redis.url()
            configuration.nodeID = node
            configuration.hibernateAfter = .seconds(1)
            configuration.sessionIdleTimeout = idleTimeout
            // NB: Redis's timeouts run on the application's clock, which the tests move by seconds at a time: a
            // command in flight then must not time out (the test of Redis away sets its own).
            configuration.redisTimeout = .seconds(600)
            extra(&configuration)
        }
    }

    /// Waits until `app`'s journal is available, then creates a session on it: the opening of every test here.
    static func journaledSession(on app: TestApplication) async throws -> String {
        #expect(try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" })
        return try await app.createSession()
    }

    /// A counter or gauge of `/metrics` (0 when absent).
    static func metric(_ app: TestApplication, _ name: String) async throws -> Double {
        let text = try await app.client.get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? 0
        }
        return 0
    }

    /// Moves the session clock past the delay and waits until `app` has hibernated `count` sessions in all and
    /// holds none.
    static func hibernate(_ app: TestApplication, _ time: TestClock, count: Double) async throws -> Bool {
        time.advance(by: .seconds(2))
        return try await advancing(time, by: .milliseconds(100)) {
            let hibernated = try await metric(app, "vmhost_sessions_hibernated_total")
            let resident = try await metric(app, "vmhost_sessions")
            return hibernated == count && resident == 0
        }
    }

    /// Waits until `condition` holds, moving the application's clock `time` by `step` between tries: the timers
    /// the wait depends on (Redis timeouts and reconnects, the fake upstream's latency, the sweeps) run on it.
    static func advancing(
        _ time: TestClock, by step: Duration = .milliseconds(250), until condition: () async throws -> Bool
    ) async throws -> Bool {
        for _ in 0..<100 {
            if try await condition() { return true }
            time.advance(by: step)
            try await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    /// The owner field of the session's hash in Redis (nil: no such session).
    static func owner(_ redis: RedisServerProcess, _ id: String) throws -> String? {
        try redis.bulk(["HGET", "vmhost:{\(SessionID.digest(id))}", "owner"])
    }

    @Test func aSessionHibernatesAndWakesHereAndOnAnotherApplication() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let time = TestClock()
        let log = CapturedLog()
        let debug = Self.configure(redis, node: "first") {
            $0.logLevel = .debug
        }
        try await withApp(debug, clock: time, log: log) { first in
            try await withApp(Self.configure(redis, node: "second"), clock: time) { second in
                let id = try await Self.journaledSession(on: first)
                #expect(
                    try await first.client.post(
                        "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: Self.wait
                    ).status == 200)
                let before = try #require(try await first.client.get("/v1/sessions/\(id)").json)
                let version = try #require(before["search"]?["version"]?.intValue)

                #expect(try await Self.hibernate(first, time, count: 1), "left memory")
                #expect(try Self.owner(redis, id) == "", "released in Redis: owned by no process")
                #expect(try await Self.metric(first, "vmhost_sessions_hibernated") == 1)

                // Woken on the same application: the same state, versions included; a command continues them.
                let woken = try await first.client.get("/v1/sessions/\(id)")
                #expect(woken.status == 200)
                #expect(woken.json == before)
                #expect(try await Self.metric(first, "vmhost_sessions_woken_total") == 1)
                #expect(try await Self.metric(first, "vmhost_session_wake_duration_seconds_count") == 1)
                #expect(try await Self.metric(first, "vmhost_sessions_hibernated") == 0)
                let text = try await first.client.post("/v1/sessions/\(id)/search/text", json: ["text": "puppies"])
                #expect(text.status == 200)
                #expect(text.json?["version"]?.intValue == version + 1)
                let changed = try #require(try await first.client.get("/v1/sessions/\(id)").json)

                // Hibernated again, then woken on the other application.
                #expect(try await Self.hibernate(first, time, count: 2))
                let elsewhere = try await second.client.get("/v1/sessions/\(id)")
                #expect(elsewhere.status == 200)
                #expect(elsewhere.header("X-VMHost-Node") == "second")
                #expect(elsewhere.json == changed)
                let more = try await second.client.post("/v1/sessions/\(id)/search/text", json: ["text": "owls"])
                #expect(more.json?["version"]?.intValue == version + 2, "versions continue on the other node")
                #expect(
                    try await Self.metric(second, "vmhost_sessions_woken_total") == 0,
                    "a takeover of a session hibernated elsewhere is not this node's wake-up")
                #expect(try await Self.metric(second, "vmhost_sessions_taken_over_total") == 1)
                #expect(try Self.owner(redis, id)?.hasPrefix("second/") == true)

                let lines = log.text.split(separator: "\n").filter { $0.contains("session hibernated") }
                #expect(lines.count == 2, "one debug line per hibernation")
                #expect(lines.allSatisfy { $0.contains("session=\(SessionID.digest(id))") && !$0.contains(id) })
            }
        }
    }

    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func aSessionHibernatedByOneProcessContinuesOnAnother() async throws {
        let upstream = try await SharedUpstream()
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        // NB: real processes and real time: the delay is set by its environment variable, 1 s.
        func start(_ name: String) async throws -> VMHostNode {
            let (process, port, _) = try await ExecutableTests.startVMHost(
                [
                    "--redis-url", redis.url(), "--node-id", name, "--flickr-url", upstream.baseURL + "/services/rest/",
                    "--products-url", upstream.baseURL,
                ], environment: ["VMHOST_HIBERNATE_AFTER_SECONDS": "1"])
            return VMHostNode(process: process, port: port, name: name)
        }
        let first = try await start("first")
        defer { first.process.signal(SIGKILL) }
        let second = try await start("second")
        defer { second.process.signal(SIGKILL) }
        #expect(try await first.journalBecomes("ok"))
        #expect(try await second.journalBecomes("ok"))

        let id = try await first.createSession()
        #expect(
            try await first.client.post(
                "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: Self.wait
            ).status == 200)
        let before = try #require(try await first.client.get("/v1/sessions/\(id)").json)
        let version = try #require(before["search"]?["version"]?.intValue)
        #expect(
            try await eventually(timeout: .seconds(10)) {
                try await first.metric("vmhost_sessions_hibernated_total") == 1
            }, "hibernated about a second after its last request")
        #expect(try await first.metric("vmhost_sessions") == 0)
        #expect(try await first.metric("vmhost_sessions_hibernated") == 1)

        let taken = try await second.client.get("/v1/sessions/\(id)")
        #expect(taken.status == 200)
        #expect(taken.header("X-VMHost-Node") == "second")
        #expect(taken.json == before)
        let next = try await second.client.post("/v1/sessions/\(id)/search/text", json: ["text": "puppies"])
        #expect(next.json?["version"]?.intValue == version + 1)
        #expect(try await second.metric("vmhost_sessions_taken_over_total") == 1)
        await upstream.shutdown()
    }

    @Test func aStreamResumedAfterHibernationGetsExactlyTheMissedPatches() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let time = TestClock()
        let keepalive = Self.configure(redis, node: "first") {
            $0.keepaliveInterval = .seconds(1)
        }
        try await withApp(keepalive, clock: time) { app in
            let id = try await Self.journaledSession(on: app)
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/search/events")
            let snapshot = try #require(try await stream.next())
            #expect(snapshot.event == "snapshot")
            let seen = try #require(Int(snapshot.id ?? ""))
            #expect(try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "a"]).status == 200)
            #expect(try await stream.next()?.id == "\(seen + 1)")
            stream.close()
            #expect(try await eventually { try await Self.metric(app, "vmhost_open_streams") == 0 })
            // Missed by the client: two versions while it was away.
            #expect(try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "ab"]).status == 200)
            #expect(try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "abc"]).status == 200)

            #expect(try await Self.hibernate(app, time, count: 1))
            let resumed = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/search/events",
                headers: [("Last-Event-ID", "\(seen + 1)")])
            let first = try #require(try await resumed.next())
            let second = try #require(try await resumed.next())
            #expect(first.event == "patch" && first.id == "\(seen + 2)")
            #expect(second.event == "patch" && second.id == "\(seen + 3)")
            #expect(second.data.contains("abc"))
            // Nothing else was pending: the next event is the next command's.
            #expect(try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "x"]).status == 200)
            let next = try #require(try await resumed.next())
            #expect(next.event == "patch" && next.id == "\(seen + 4)")
            #expect(try await Self.metric(app, "vmhost_sessions_woken_total") == 1)
            resumed.close()
        }
    }

    @Test func aCommandArrivingDuringTheReleaseIsAnsweredOnceAndKept() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let time = TestClock()
        try await withApp(Self.configure(redis, node: "first") { $0.redisTimeout = .seconds(5) }, clock: time) { app in
            let id = try await Self.journaledSession(on: app)
            let version = try #require(
                try await app.client.get("/v1/sessions/\(id)/search").json?["version"]?.intValue)

            // Redis holds every command for 1.5 s: the release the next sweep sends waits in Redis, and the
            // command below reaches vmhost while it does.
            try redis.command(["CLIENT", "PAUSE", "1500", "ALL"])
            let paused = ContinuousClock.now
            time.advance(by: .seconds(2))
            try await Task.sleep(for: .milliseconds(600))
            #expect(try await Self.metric(app, "vmhost_sessions") == 0, "out of memory while its release waits")
            let answer = try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "racing"])
            #expect(answer.status == 200, "\(answer.text)")
            #expect(answer.json?["version"]?.intValue == version + 1)
            #expect(ContinuousClock.now - paused >= .milliseconds(1400), "the command waited for the release")

            #expect(try await Self.metric(app, "vmhost_sessions_hibernated_total") == 1)
            #expect(try await Self.metric(app, "vmhost_sessions_woken_total") == 1, "taken back from Redis")
            #expect(try Self.owner(redis, id)?.hasPrefix("first/") == true, "one owner: the process serving it")
            let state = try await app.client.get("/v1/sessions/\(id)/search").json
            #expect(state?["searchText"] == "racing")
            #expect(
                await eventually {
                    (try? redis.bulk(["HGET", "vmhost:{\(SessionID.digest(id))}", "vm:search"]))?
                        .contains(#""searchText":"racing""#) == true
                }, "the answered command is durable")
        }
    }

    @Test func aDueSessionStaysResidentWhileRedisIsAwayAndHibernatesOnceItIsBack() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer {
            redis.resume()
            redis.stop()
        }
        let time = TestClock()
        let configure = Self.configure(redis, node: "first") {
            $0.redisTimeout = .milliseconds(300)
        }
        try await withApp(configure, clock: time) { app in
            let id = try await Self.journaledSession(on: app)

            // Redis hangs: a command times out in the journal (300 ms of the application's clock) and is served
            // from memory.
            redis.suspend()
            let away = Task {
                try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "while away"])
            }
            #expect(
                try await Self.advancing(time, by: .milliseconds(100)) {
                    try await app.client.get("/healthz").json?["journal"] == "unavailable"
                })
            let answer = try await away.value
            #expect(answer.status == 200)

            time.advance(by: .seconds(2))
            try await Task.sleep(for: .milliseconds(1000))
            #expect(try await Self.metric(app, "vmhost_sessions") == 1, "due, but not durable: kept in memory")
            #expect(try await Self.metric(app, "vmhost_sessions_hibernated_total") == 0)
            #expect(try await app.client.get("/v1/sessions/\(id)/search").json?["searchText"] == "while away")

            // Redis back: the client reconnects, the journal catches up, then the session hibernates.
            redis.resume()
            #expect(
                try await Self.advancing(time) {
                    let hibernated = try await Self.metric(app, "vmhost_sessions_hibernated_total")
                    let resident = try await Self.metric(app, "vmhost_sessions")
                    return hibernated == 1 && resident == 0
                })
            #expect(try Self.owner(redis, id) == "")
            let woken = try await app.client.get("/v1/sessions/\(id)/search")
            #expect(woken.status == 200)
            #expect(woken.json?["searchText"] == "while away", "the change made while Redis was away survived")
        }
    }

    @Test func aSessionWithALoadInFlightStaysResidentUntilTheLoadEnds() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let time = TestClock()
        try await withApp(Self.configure(redis, node: "first"), clock: time) { app in
            #expect(try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" })
            await app.setUpstream(FakeUpstreamBehavior(latency: .milliseconds(1500)))
            let id = try await app.createSession()
            let started = try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "kittens"])
            #expect(started.status == 202)

            // NB: the fake's latency is on the application's clock too: 1.2 s of it passes, the load is still on.
            time.advance(by: .milliseconds(1200))
            try await Task.sleep(for: .milliseconds(700))
            #expect(try await Self.metric(app, "vmhost_sessions") == 1, "idle, but its search is loading")
            #expect(try await Self.metric(app, "vmhost_sessions_hibernated_total") == 0)

            // The load ends (1.5 s), is written, and the next sweep hibernates the session with its results.
            #expect(
                try await Self.advancing(time) {
                    try await Self.metric(app, "vmhost_sessions_hibernated_total") == 1
                })
            let woken = try #require(try await app.client.get("/v1/sessions/\(id)/search").json)
            #expect(woken["results"]?["value"]?["page"] == 1, "the loaded page came back: \(woken)")
            #expect(woken["results"]?["status"] == "loaded")
        }
    }

    @Test func aSubjectsHibernatedSessionsCountAgainstItsLimit() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let time = TestClock()
        let path = try TestTokens.file(TestTokens.secret + Array("\n".utf8), name: "secret")
        defer { unlink(path) }
        let fixed = AuthenticationTests.now
        let configure = Self.configure(redis, node: "first") {
            $0.authHS256SecretFile = path
            $0.authIssuer = TestTokens.issuer
            $0.authAudience = TestTokens.audience
            $0.maxSessionsPerSubject = 1
        }
        try await withApp(configure, clock: time, wallClock: { fixed }) { app in
            #expect(try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" })
            let alice = AuthenticationTests.bearer(AuthenticationTests.token("alice"))
            let id = try #require(try await app.client.post("/v1/sessions", headers: alice).json?["id"]?.stringValue)
            #expect(try await Self.hibernate(app, time, count: 1))
            let refused = try await app.client.post("/v1/sessions", headers: alice)
            #expect(refused.status == 429, "a hibernated session is still the subject's")
            #expect(refused.json?["error"]?["code"] == "too_many_sessions")

            #expect(try await app.client.get("/v1/sessions/\(id)", headers: alice).status == 200, "woken")
            #expect(try await app.client.post("/v1/sessions", headers: alice).status == 429, "counted once")
            #expect(try await app.client.request("DELETE", "/v1/sessions/\(id)", headers: alice).status == 204)
            #expect(try await app.client.post("/v1/sessions", headers: alice).status == 201, "a deleted one frees it")
        }
    }

    @Test func aHibernatedSessionExpiresWithItsIdleTimeout() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let time = TestClock()
        try await withApp(Self.configure(redis, node: "first", idleTimeout: .seconds(3)), clock: time) { app in
            let id = try await Self.journaledSession(on: app)
            let key = "vmhost:{\(SessionID.digest(id))}"
            // NB: hibernated 2 s of the session clock after its last request: 1 s of its idle timeout is left.
            #expect(try await Self.hibernate(app, time, count: 1))
            let ttl = try #require(Int(try redis.command(["PTTL", key]).dropFirst()))
            #expect(ttl > 0 && ttl <= 1000, "Redis expires it when a resident session would have expired: \(ttl)")
            #expect(
                await eventually(timeout: .seconds(10)) { (try? redis.command(["EXISTS", key])) == ":0" },
                "expired in Redis")
            let gone = try await app.client.get("/v1/sessions/\(id)")
            #expect(gone.status == 404)
            #expect(gone.json?["error"]?["code"] == "session_not_found")
        }
    }
}
