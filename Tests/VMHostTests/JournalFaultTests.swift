import JSON
import Sessions
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// A real vmhost process whose `redis-server` is down at start, comes up, is killed and restarted, and hangs
/// (SIGSTOP): the process serves every request from memory throughout, a client stream keeps receiving the
/// patches of the commands sent, and the journal catches up each time Redis is back.
@Suite(
    "Journal: Redis faults under a running process", .serialized,
    .enabled(if: access(ExecutableTests.binary, X_OK) == 0))
struct JournalFaultTests {
    static let wait = [("Prefer", "wait=10")]

    /// Sets the search text and checks the answer and that the client's stream carries it. With an
    /// `Idempotency-Key`, the journal writes the change through its script (the answer goes with it).
    static func change(
        _ node: VMHostNode, _ client: DurableSessionClient, to text: String, within limit: Duration = .seconds(5),
        idempotencyKey: String? = nil
    ) async throws {
        let started = ContinuousClock.now
        let response = try await node.client.post(
            "/v1/sessions/\(client.id)/search/text", json: ["text": .string(text)],
            headers: idempotencyKey.map { [("Idempotency-Key", $0)] } ?? [])
        #expect(response.status == 200, "\(text): \(response.text)")
        #expect(ContinuousClock.now - started < limit, "\(text) answered in time")
        #expect(
            await eventually { client.current.states["search"]?["searchText"] == .string(text) }, "\(text) streamed"
        )
    }

    /// Whether Redis holds the session with `text` as its search text.
    static func isDurable(_ redis: RedisServerProcess, _ id: String, text: String) -> Bool {
        // NB: the entry is a compressed checkpoint and a log of patches: read as a takeover reads it.
        guard let search = try? redis.journaled(id, "search") else { return false }
        return search.state["searchText"] == .string(text)
    }

    @Test func vmhostServesThroughRedisFaultsAndCatchesUp() async throws {
        let upstream = try await SharedUpstream()
        let redis = try RedisServerProcess()
        defer { redis.kill() }
        var node = try await VMHostNode.start(
            "first", redis: redis, upstream: upstream.baseURL, redisTimeoutMilliseconds: 300)
        defer { node.process.signal(SIGKILL) }

        // Redis down at start: served from memory, reported.
        #expect(try await node.journalBecomes("unavailable"))
        let id = try await node.createSession()
        let client = DurableSessionClient(id: id)
        try await client.follow(port: node.port)
        #expect(
            try await node.client.post(
                "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: Self.wait
            ).status == 200)
        try await Self.change(node, client, to: "while away")
        #expect(try await node.metric("vmhost_journal_available") == 0)
        #expect(
            try await eventually { try await node.metric("vmhost_journal_write_failures_total") > 0 },
            "writes that could not be made are counted")

        // Redis comes up: the journal catches up, and the session is durable (another process continues it).
        try await redis.start()
        #expect(try await node.journalBecomes("ok"))
        #expect(await eventually { Self.isDurable(redis, id, text: "while away") })
        #expect(try await eventually { try await node.metric("vmhost_journal_writes_total") > 0 })
        let seen = try #require(try await node.client.get("/v1/sessions/\(id)").json)
        try await node.stop(SIGKILL)
        #expect(await eventually { client.current.ended })
        node = try await VMHostNode.start(
            "second", redis: redis, upstream: upstream.baseURL, redisTimeoutMilliseconds: 300)
        #expect(try await node.journalBecomes("ok"))
        let taken = try await node.client.get("/v1/sessions/\(id)")
        #expect(taken.status == 200)
        #expect(taken.json == seen, "the session changed while Redis was away survived the process")
        try await client.follow(port: node.port)
        try await Self.change(node, client, to: "taken over")

        // Redis killed mid-run: served from memory; restarted empty: the session is written in full again.
        redis.kill()
        try await Self.change(node, client, to: "redis gone")
        #expect(try await node.journalBecomes("unavailable"))
        try await Self.change(node, client, to: "still gone")
        let failuresBefore = try await node.metric("vmhost_journal_write_failures_total")
        try await redis.start()
        #expect(try await node.journalBecomes("ok"))
        #expect(await eventually { Self.isDurable(redis, id, text: "still gone") }, "caught up after a restart")
        try await Self.change(node, client, to: "redis back")
        #expect(await eventually { Self.isDurable(redis, id, text: "redis back") })

        // Redis hangs: commands time out in the client (300 ms), requests are answered, the stream goes on.
        redis.suspend()
        try await Self.change(node, client, to: "redis hangs")
        try await Self.change(node, client, to: "still hanging")
        #expect(try await node.journalBecomes("unavailable"))
        try await Self.change(node, client, to: "hung and unavailable", within: .seconds(2))
        #expect(try await eventually { try await node.metric("vmhost_journal_write_failures_total") > failuresBefore })
        #expect(
            try await node.client.get("/v1/sessions/\(id)").json?["search"]?["searchText"] == "hung and unavailable")
        redis.resume()
        #expect(try await node.journalBecomes("ok"))
        #expect(
            await eventually { Self.isDurable(redis, id, text: "hung and unavailable") }, "caught up after the hang"
        )
        // Redis forgets its scripts: the refused EVALSHA goes again with the script's text, nothing fails. (The
        // changes carry an Idempotency-Key: an ordinary one is written without the script.)
        let failuresBeforeFlush = try await node.metric("vmhost_journal_write_failures_total")
        let byText = try redis.calls(of: "eval")
        _ = try redis.bulk(["SCRIPT", "FLUSH"])
        try await Self.change(node, client, to: "scripts flushed", idempotencyKey: "after the flush")
        #expect(await eventually { Self.isDurable(redis, id, text: "scripts flushed") }, "written by text")
        #expect(try redis.calls(of: "eval") > byText, "the refused EVALSHA went again as EVAL")
        let byHash = try redis.calls(of: "evalsha")
        try await Self.change(node, client, to: "by hash again", idempotencyKey: "by hash again")
        #expect(await eventually { Self.isDurable(redis, id, text: "by hash again") })
        #expect(try redis.calls(of: "evalsha") > byHash, "and by its hash after that")
        #expect(try await node.metric("vmhost_journal_write_failures_total") == failuresBeforeFlush)

        let writesBefore = try await node.metric("vmhost_journal_writes_total")
        try await Self.change(node, client, to: "all well")
        #expect(await eventually { Self.isDurable(redis, id, text: "all well") })
        #expect(try await eventually { try await node.metric("vmhost_journal_writes_total") > writesBefore })
        #expect(client.current.problems.isEmpty, "\(client.current.problems)")
        let final = try await node.client.get("/v1/sessions/\(id)").json
        #expect(client.matches(final))
        await upstream.shutdown()
    }
}

extension RedisServerProcess {
    /// Sends one command in RESP over a fresh connection and returns its bulk string reply (nil for a nil reply).
    func bulk(_ arguments: [String]) throws -> String? {
        let socket = try send(arguments)
        defer { socket.close() }
        let head = try socket.readLine()
        guard head.hasPrefix("$"), let length = Int(head.dropFirst()), length >= 0 else { return nil }
        // NB: the journal's values are compact JSON, one line.
        return try socket.readLine()
    }
}
