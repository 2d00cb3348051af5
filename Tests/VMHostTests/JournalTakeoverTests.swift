import JSON
import JSONPatch
import Testing
import VMHostTesting

/// Two vmhost applications on one real `redis-server`: a session continues on the other one with the same
/// state, versions and replay ring (in-process; `DurableSessionProcessTests` kills real processes).
@Suite("Journal: takeover between two applications", .serialized)
struct JournalTakeoverTests {
    /// Loads two search pages, two product pages and a recent search on `app`.
    static func loadState(_ app: TestApplication, _ id: String) async throws {
        let wait = [("Prefer", "wait=10")]
        #expect(
            try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: wait)
                .status == 200)
        #expect(try await app.client.post("/v1/sessions/\(id)/search/load-more", headers: wait).status == 200)
        #expect(try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait).status == 200)
        #expect(try await app.client.post("/v1/sessions/\(id)/products/load-more", headers: wait).status == 200)
    }

    @Test func aSessionContinuesOnAnotherApplicationWithItsVersionsAndStreams() async throws {
        try await withTwoJournaledApps { _, first, second in try await Self.takeOver(first, second) }
    }

    static func takeOver(_ first: TestApplication, _ second: TestApplication) async throws {
        #expect(try await eventually { try await first.client.get("/healthz").json?["journal"] == "ok" })
        #expect(try await first.client.get("/healthz").header("X-VMHost-Node") == "first")

        let id = try await first.createSession()
        try await Self.loadState(first, id)
        let before = try #require(try await first.client.get("/v1/sessions/\(id)").json)
        let searchVersion = try #require(before["search"]?["version"]?.intValue)
        #expect(before["search"]?["results"]?["value"]?["page"] == 2)
        #expect(before["products"]?["page"] == 2)
        #expect(before["search"]?["recentSearches"]?.arrayValue?.count == 1)

        // The second application has never seen the session: it takes it over from Redis.
        let taken = try await second.client.get("/v1/sessions/\(id)")
        #expect(taken.status == 200)
        #expect(taken.header("X-VMHost-Node") == "second")
        #expect(taken.json == before, "the same state, versions included")

        // A stream resumed with an id from the first application gets exactly the missed patches.
        let stream = try await TestEventStream(
            port: second.port, path: "/v1/sessions/\(id)/search/events",
            headers: [("Last-Event-ID", "\(searchVersion - 2)")])
        let replayed1 = try #require(try await stream.next())
        let replayed2 = try #require(try await stream.next())
        #expect(replayed1.event == "patch" && replayed1.id == "\(searchVersion - 1)")
        #expect(replayed2.event == "patch" && replayed2.id == "\(searchVersion)")

        // Commands work on the new owner and continue the versions.
        let text = try await second.client.post("/v1/sessions/\(id)/search/text", json: ["text": "puppies"])
        #expect(text.status == 200)
        #expect(text.json?["version"]?.intValue == searchVersion + 1)
        let patch = try #require(try await stream.next())
        #expect(patch.id == "\(searchVersion + 1)")

        // The first application lost the session: its next change is fenced off and it hands the session over.
        // NB: unless its expiry refresh (every 30 s from its start; this test took up to 25 s in CI) learnt it
        // first and handed the session over then: the change then takes the session back and applies.
        let stale = try await first.client.post("/v1/sessions/\(id)/search/text", json: ["text": "stale"])
        let fenced = stale.status == 503
        if fenced {
            #expect(stale.header("Retry-After") == "1", "the change was refused by the journal, never shown")
        } else {
            #expect(stale.status == 200, "\(stale.text)")
        }
        #expect(
            try await eventually {
                try await first.client.get("/metrics").text.contains("vmhost_sessions_handed_over_total 1")
            })
        // …and the session, taken back by the first application, is the second's state (with the change when it
        // was not fenced).
        let back = try await first.client.get("/v1/sessions/\(id)")
        #expect(back.json?["search"]?["searchText"] == (fenced ? "puppies" : "stale"))
        #expect(back.json?["search"]?["version"]?.intValue == searchVersion + (fenced ? 1 : 2))
        // The second application lost it in turn: its next change is refused and its stream ends.
        let refused = try await second.client.post("/v1/sessions/\(id)/search/text", json: ["text": "late"])
        #expect(refused.status == 503)
        #expect(try await stream.hasEnded(), "the stream of a handed-over session ends, so its client reconnects")
    }

    @Test func aStreamOnAProcessThatLostItsSessionEndsEvenWithNothingToWrite() async throws {
        // NB: the first refreshes expiry (and notices lost sessions) every 500 ms.
        try await withQuicklyRefreshingJournaledApp { redis, first in
            try await withApp({ $0.redisURL = redis.url() }) { second in
                let id = try await first.createSession()
                let stream = try await TestEventStream(port: first.port, path: "/v1/sessions/\(id)/events")
                #expect(try await stream.next()?.event == "search.snapshot")
                #expect(try await second.client.get("/v1/sessions/\(id)").status == 200, "taken over")
                #expect(try await stream.hasEnded(waitMilliseconds: 5000), "the old owner ended its stream by itself")
                #expect(try await first.client.get("/metrics").text.contains("vmhost_sessions_handed_over_total 1"))
            }
        }
    }

    @Test func anUnknownIdIsNotFoundAndCorruptDataIsMissing() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        try await withApp(via: .router, { $0.redisURL = redis.url() }) { app in
            #expect(try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" })
            let unknown = try await app.client.get("/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA")
            #expect(unknown.status == 404)
            #expect(unknown.json?["error"]?["code"] == "session_not_found")

            // A record that is not ours (garbage, or a foreign shape) is logged and treated as missing.
            for (index, entry) in ["not json", #"{"version": "x"}"#, #"{"version": 3, "state": {}, "snapshot": 7}"#]
                .enumerated()
            {
                let id = String(repeating: "B", count: 21) + "\(index)"
                try redis.command(["HSET", "vmhost:{\(id)}", "owner", "elsewhere/1", "vm:search", entry])
                let corrupt = try await app.client.get("/v1/sessions/\(id)")
                #expect(corrupt.status == 404, "\(entry)")
                #expect(corrupt.json?["error"]?["code"] == "session_not_found")
            }
            #expect(try await app.client.get("/healthz").status == 200, "still serving")
        }
    }
}

extension RedisServerProcess {
    /// Sends one command in RESP over a fresh connection and returns the first reply line.
    @discardableResult
    func command(_ arguments: [String]) throws -> String {
        let socket = try send(arguments)
        defer { socket.close() }
        return try socket.readLine()
    }
}
