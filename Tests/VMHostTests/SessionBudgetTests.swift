import EventLoop
import JSON
import Testing
import VMHostTesting

// What one session may make the server hold or spend (issue 24): its upstream budget, the photo metadata it
// can ask for, and the bytes of its idempotency answers, in memory and in Redis.

@Suite("Session budgets")
struct SessionBudgetTests {
    /// Upstream calls the fake upstream served for searches, product pages and photo details.
    @LoopActor
    static func upstreamLoads(_ app: TestApplication) -> Int {
        app.upstreamRequests("flickr.photos.search") + app.upstreamRequests("/products")
            + app.upstreamRequests("flickr.photos.getInfo")
    }

    @Test func aLoopOfCommandsIsHeldToTheSessionsUpstreamBudget() async throws {
        let time = SessionTime()
        try await withApp(via: .router, { $0.upstreamCallsPerMinute = 10 }, time: time) { app in
            let id = try await app.createSession()
            let before = await Self.upstreamLoads(app)
            let wait = [("Prefer", "wait=5")]
            var accepted = 0
            var limited: [TestHTTPResponse] = []
            // The attack: 100 commands made 150 upstream calls; nothing limited a session.
            for index in 0..<100 {
                let response: TestHTTPResponse
                switch index % 3 {
                case 0:
                    response = try await app.client.post(
                        "/v1/sessions/\(id)/search/execute", json: ["text": .string("loop \(index)")], headers: wait)
                case 1:
                    response = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait)
                default:
                    response = try await app.client.post(
                        "/v1/sessions/\(id)/photo/open", json: ["photoId": .string("\(1000 + index)")], headers: wait)
                }
                if response.status == 429 { limited.append(response) } else { accepted += 1 }
            }
            let loads = await Self.upstreamLoads(app) - before
            // NB: the session clock also moves with real time: a fraction of a token per second at 10 a minute.
            #expect(accepted <= 11, "a full bucket of 10, and what refilled while the test ran")
            #expect(loads <= 11, "\(loads) upstream loads for 100 commands")
            #expect(limited.count >= 89)
            for response in limited.prefix(3) {
                #expect(response.errorCode == "rate_limited")
                #expect(Int(response.header("Retry-After") ?? "") ?? 0 >= 1)
            }
            // Commands that start no upstream load are not limited.
            #expect(
                try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "plain text"]).status == 200)
            // The bucket refills evenly: half a minute gives five loads back.
            await time.advance(by: .seconds(30))
            var refilled = 0
            for index in 0..<8 {
                let response = try await app.client.post(
                    "/v1/sessions/\(id)/search/execute", json: ["text": .string("later \(index)")], headers: wait)
                if response.status != 429 { refilled += 1 }
            }
            #expect((5...6).contains(refilled), "\(refilled)")
            // Another session has its own budget.
            let other = try await app.createSession()
            #expect(try await app.client.post("/v1/sessions/\(other)/products/refresh").status == 202)
        }
    }

    @Test func aDebouncedSearchThatFindsTheBudgetEmptySetsLastError() async throws {
        let clock = TestClock()
        try await withApp(via: .router, { $0.upstreamCallsPerMinute = 1 }, clock: clock) { app in
            let id = try await app.createSession()
            let wait = [("Prefer", "wait=5")]
            #expect(
                try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "first"], headers: wait)
                    .status == 200)
            let searches = await app.upstreamRequests("flickr.photos.search")
            let typed = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": "second search", "autoSearch": true])
            #expect(typed.status == 200, "typing is never limited")
            #expect(await eventually { clock.sleeperCount == 1 })
            clock.advance(by: .milliseconds(300))
            #expect(
                try await eventually {
                    try await app.client.get("/v1/sessions/\(id)/search").json?["lastError"]?["status"] == 429
                })
            let state = try #require(try await app.client.get("/v1/sessions/\(id)/search").json)
            #expect(state["lastError"]?["message"]?.stringValue?.contains("budget") == true)
            #expect(state["results"]?["value"]?["searchString"] == "first", "the results stay")
            #expect(await app.upstreamRequests("flickr.photos.search") == searches, "no search ran")
        }
    }

    @Test func photoMetadataIsFetchedOncePerPhotoHoweverTheClientScrolls() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let wait = [("Prefer", "wait=5")]
            let results = try await app.client.post(
                "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: wait)
            let photos = try #require(results.json?["results"]?["value"]?["photos"]?.arrayValue)
            let ids = photos.prefix(4).compactMap { $0["id"] }
            let before = await app.upstreamRequests("flickr.photos.getFavorites")
            // Scrolling back and forth (before, each return to the photos started their loads again).
            for _ in 0..<20 {
                _ = try await app.client.post("/v1/sessions/\(id)/search/visible", json: ["photoIds": .array(ids)])
                _ = try await app.client.post("/v1/sessions/\(id)/search/visible", json: ["photoIds": []])
            }
            _ = try await app.client.post(
                "/v1/sessions/\(id)/search/visible", json: ["photoIds": .array(ids)], headers: wait)
            #expect(await app.upstreamRequests("flickr.photos.getFavorites") - before <= ids.count)
            // Photos not in the results are never fetched.
            _ = try await app.client.post(
                "/v1/sessions/\(id)/search/visible", json: ["photoIds": ["1", "2", "3"]], headers: wait)
            #expect(await app.upstreamRequests("flickr.photos.getFavorites") - before <= ids.count)
            let state = try #require(try await app.client.get("/v1/sessions/\(id)/search").json)
            #expect(state["results"]?["value"]?["photos"]?[0]?["favorites"]?.intValue != nil, "the counts arrived")
        }
    }

    // MARK: Idempotency answers

    /// 40 keyed `search/text` commands of 4 KiB texts: about 40 answers of 4 KiB.
    static func sendKeyedTexts(_ app: TestApplication, session id: String) async throws -> [TestHTTPResponse] {
        var answers: [TestHTTPResponse] = []
        for index in 0..<40 {
            let text = String(repeating: "\(index % 10)", count: 4096)
            answers.append(
                try await app.client.post(
                    "/v1/sessions/\(id)/search/text", json: ["text": .string(text)],
                    headers: [("Idempotency-Key", "text-\(index)")]))
        }
        return answers
    }

    @Test func idempotencyAnswersAreBoundedInBytesOldestForgottenFirst() async throws {
        try await withApp(via: .router, { $0.idempotencyBytesPerSession = 16 * 1024 }) { app in
            let id = try await app.createSession()
            let answers = try await Self.sendKeyedTexts(app, session: id)
            #expect(answers.allSatisfy { $0.status == 200 })
            let (count, bytes) = await app.idempotency(of: id)
            #expect(bytes <= 16 * 1024, "\(bytes) bytes in \(count) answers")
            #expect((2...4).contains(count), "\(count) answers of about 4 KiB each")
            // The newest key is still answered again; the oldest was forgotten, so its repeat runs again.
            let newest = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": .string(String(repeating: "9", count: 4096))],
                headers: [("Idempotency-Key", "text-39")])
            #expect(newest.header("Idempotent-Replayed") == "true")
            let oldest = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": .string(String(repeating: "0", count: 4096))],
                headers: [("Idempotency-Key", "text-0")])
            #expect(oldest.status == 200)
            #expect(oldest.header("Idempotent-Replayed") == nil)
        }
    }

    @Test func theJournalKeepsNoMoreIdempotencyBytesThanMemory() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        try await withApp(
            via: .router,
            {
                $0.redisURL = redis.url()
                $0.idempotencyBytesPerSession = 16 * 1024
            }
        ) { app in
            #expect(try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" })
            let id = try await app.createSession()
            _ = try await Self.sendKeyedTexts(app, session: id)
            // Every answer is journaled before it goes out; then the hash of answers holds at most the bound.
            let stored = try redis.answerBytes()
            #expect(stored > 0)
            #expect(stored <= 16 * 1024 + 512, "\(stored) bytes of answers in Redis")
        }
    }
}

extension TestApplication {
    /// The number and bytes of the idempotency answers a session keeps in memory.
    @LoopActor
    func idempotency(of id: String) -> (count: Int, bytes: Int) {
        guard let session = application.sessions.session(id) else { return (0, 0) }
        return (session.idempotencyKeys.count, session.idempotencyKeys.bytes)
    }
}

extension RedisServerProcess {
    /// The bytes of every idempotency answer in Redis (the values of each hash named `…:k`, its byte count
    /// aside), whatever the session keys are called.
    func answerBytes() throws -> Int {
        let script = """
            local total = 0
            for _, key in ipairs(redis.call('KEYS', '*:k')) do
              local fields = redis.call('HGETALL', key)
              for i = 1, #fields, 2 do
                if fields[i] ~= '' then total = total + #fields[i + 1] end
              end
            end
            return total
            """
        let reply = try command(["EVAL", script, "0"])
        guard reply.first == ":", let bytes = Int(reply.dropFirst()) else {
            throw TestClientError("unexpected reply \(reply)")
        }
        return bytes
    }
}
