import JSON
import JSONPatch
import Testing
import VMHostTesting

@Suite("One multiplexed stream per session")
struct SessionStreamTests {
    /// Applies events to per-view-model states until `done` holds; returns the states and the events.
    func follow(
        _ stream: TestEventStream, states: [String: JSONValue], until done: ([String: JSONValue]) -> Bool
    ) async throws -> ([String: JSONValue], [TestServerSentEvent]) {
        var states = states
        var events: [TestServerSentEvent] = []
        while !done(states) {
            let event = try #require(try await stream.next())
            events.append(event)
            let parts = event.event.split(separator: ".")
            try #require(parts.count == 2, "event name \(event.event)")
            let name = String(parts[0])
            let data = try #require(event.json)
            switch parts[1] {
            case "snapshot": states[name] = data
            case "patch": states[name] = try JSONPatch.apply(JSONPatch.parse(data), to: try #require(states[name]))
            default: Issue.record("unexpected event \(event.event)")
            }
            let expectedID = ["search", "products", "photo"].map { "\($0):\(states[$0]?["version"]?.intValue ?? 0)" }
                .joined(separator: ",")
            #expect(event.id == expectedID)
        }
        return (states, events)
    }

    @Test func snapshotsOfEveryViewModelThenNamedPatches() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/events")
            #expect(stream.status == 200)
            #expect(stream.header("Content-Type") == "text/event-stream")
            let first = try #require(try await stream.next())
            let second = try #require(try await stream.next())
            let third = try #require(try await stream.next())
            #expect(first.event == "search.snapshot")
            #expect(first.retry == 3000)
            #expect(first.id == "search:1,products:0,photo:0", "the versions the client holds after each event")
            #expect(second.event == "products.snapshot")
            #expect(second.id == "search:1,products:1,photo:0")
            #expect(third.event == "photo.snapshot")
            #expect(third.id == "search:1,products:1,photo:1")
            var states = [
                "search": try #require(first.json), "products": try #require(second.json),
                "photo": try #require(third.json),
            ]

            let wait = [("Prefer", "wait=10")]
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait)
            _ = try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: wait)
            let session = try #require(try await app.client.get("/v1/sessions/\(id)").json)
            let (final, events) = try await follow(stream, states: states) {
                $0["search"]?["version"] == session["search"]?["version"]
                    && $0["products"]?["version"] == session["products"]?["version"]
            }
            states = final
            #expect(Set(events.map(\.event)) == ["products.patch", "search.patch"])
            #expect(states["search"] == session["search"])
            #expect(states["products"] == session["products"])
            stream.close()
        }
    }

    @Test func resumeReplaysEachViewModelsMissedPatches() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let wait = [("Prefer", "wait=10")]
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait)  // products 1 → 3
            let session = try #require(try await app.client.get("/v1/sessions/\(id)").json)
            #expect(session["products"]?["version"] == 3)

            let resumed = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/events",
                headers: [("Last-Event-ID", "search:1,products:1,photo:1")]
            )
            let first = try #require(try await resumed.next())
            let second = try #require(try await resumed.next())
            #expect(first.event == "products.patch")
            #expect(first.id == "search:1,products:2,photo:1")
            #expect(second.event == "products.patch")
            #expect(second.id == "search:1,products:3,photo:1")
            resumed.setTimeout(seconds: 0, microseconds: 300_000)
            await #expect(throws: TestClientError.self) { try await resumed.next() }
            resumed.close()

            // An unknown or future version gets that view model's snapshot; the other is replayed.
            let mixed = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/events?lastEventId=search:99,products:2,photo:1"
            )
            let snapshot = try #require(try await mixed.next())
            #expect(snapshot.event == "search.snapshot")
            #expect(snapshot.json == session["search"])
            let patch = try #require(try await mixed.next())
            #expect(patch.event == "products.patch")
            #expect(patch.id == "search:1,products:3,photo:1")
            mixed.close()
        }
    }

    @Test func snapshotFormatAndSessionDeletion() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/events?format=snapshot")
            #expect(try await stream.next()?.event == "search.snapshot")
            #expect(try await stream.next()?.event == "products.snapshot")
            #expect(try await stream.next()?.event == "photo.snapshot")
            _ = try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "hello"])
            let change = try #require(try await stream.next())
            #expect(change.event == "search.snapshot")
            #expect(change.json?["searchText"] == "hello")
            #expect(change.id == "search:2,products:1,photo:1")

            #expect(try await app.client.request("DELETE", "/v1/sessions/\(id)").status == 204)
            #expect(try await stream.next() == nil, "deleting the session ends the stream")
            let gone = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/events")
            #expect(gone.status == 404)
        }
    }
}

@Suite("Slow readers")
struct SlowReaderTests {
    @Test func aReaderThatFallsBehindGetsAFreshSnapshotInsteadOfEveryPatch() async throws {
        try await withApp({ $0.streamMaxPendingBytes = 16 * 1024 }) { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/search/events", receiveBufferBytes: 4096
            )
            var state = try #require(try await stream.next()?.json)
            // 400 changes of ~8 KiB each while the client reads nothing: ~3 MiB of patches.
            let filler = String(repeating: "x", count: 8 * 1024)
            for index in 0..<400 {
                _ = try await app.client.post(
                    "/v1/sessions/\(id)/search/text", json: ["text": .string("\(index) \(filler)")])
            }
            let target = try #require(try await app.client.get("/v1/sessions/\(id)/search").json)
            var events: [String] = []
            while state["version"] != target["version"] {
                let event = try #require(try await stream.next())
                events.append(event.event)
                let data = try #require(event.json)
                state = event.event == "snapshot" ? data : try JSONPatch.apply(JSONPatch.parse(data), to: state)
            }
            #expect(state == target)
            #expect(events.contains("snapshot"), "the backlog was dropped and replaced by a snapshot")
            #expect(events.count < 400, "not every patch was queued: \(events.count) events")
            stream.close()
        }
    }
}
