import FakeUpstream
import JSON
import JSONPatch
import Testing
import VMHostTesting

@Suite("Product list over HTTP and SSE")
struct ProductStreamTests {
    /// Reads events until `predicate` holds for the state, applying patches; returns the state and events.
    func follow(
        _ stream: TestEventStream, from state: JSONValue, until predicate: (JSONValue) -> Bool
    ) async throws -> (JSONValue, [TestServerSentEvent]) {
        var state = state
        var events: [TestServerSentEvent] = []
        while !predicate(state) {
            let event = try #require(try await stream.next())
            events.append(event)
            let data = try #require(event.json)
            switch event.event {
            case "snapshot": state = data
            case "patch": state = try JSONPatch.apply(JSONPatch.parse(data), to: state)
            default: Issue.record("unexpected event \(event.event)")
            }
            #expect(event.id == state["version"]?.intValue.map(String.init), "id is the version")
        }
        return (state, events)
    }

    @Test func snapshotThenPatchesReproduceTheState() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/products/events")
            #expect(stream.status == 200)
            #expect(stream.header("Content-Type") == "text/event-stream")
            #expect(stream.header("Cache-Control") == "no-cache")
            #expect(stream.header("X-Accel-Buffering") == "no")

            let first = try #require(try await stream.next())
            #expect(first.event == "snapshot")
            #expect(first.id == "1")
            #expect(first.retry == 3000)
            let snapshot = try #require(first.json)
            #expect(snapshot == (try await app.client.get("/v1/sessions/\(id)/products").json))

            let accepted = try await app.client.post("/v1/sessions/\(id)/products/refresh")
            #expect(accepted.status == 202)
            #expect(accepted.json == ["version": 2])

            let (loaded, events) = try await follow(stream, from: snapshot) { $0["page"] == 1 }
            #expect(events.map(\.event) == ["patch", "patch"])
            #expect(loaded["items"]?.arrayValue?.count == 20)
            #expect(loaded["hasMore"] == true)
            #expect(loaded["isRefreshing"] == false)
            #expect(
                loaded["items"]?[0] == [
                    "id": "p-1001", "title": "Steady Growth 30", "subtitle": "Harbor Bank", "price": "1,000.00",
                    "badge": "On sale", "detail": "30 days · 3.00%", "imageUrl": nil,
                ])
            #expect(loaded == (try await app.client.get("/v1/sessions/\(id)/products").json))

            #expect(try await app.client.post("/v1/sessions/\(id)/products/load-more").status == 202)
            let (more, _) = try await follow(stream, from: loaded) { $0["page"] == 2 && $0["isLoadingMore"] == false }
            #expect(more["items"]?.arrayValue?.count == 40)
            #expect(more == (try await app.client.get("/v1/sessions/\(id)/products").json))

            #expect(try await app.client.post("/v1/sessions/\(id)/products/load-more").status == 202)
            let (last, _) = try await follow(stream, from: more) { $0["page"] == 3 && $0["isLoadingMore"] == false }
            #expect(last["items"]?.arrayValue?.count == 57)
            #expect(last["hasMore"] == false)
            let refused = try await app.client.post("/v1/sessions/\(id)/products/load-more")
            #expect(refused.status == 409)
            #expect(refused.errorCode == "command_disabled")
            stream.close()
        }
    }

    @Test func preferWaitAnswersWithTheFinishedState() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let response = try await app.client.post(
                "/v1/sessions/\(id)/products/refresh", headers: [("Prefer", "wait=5")])
            #expect(response.status == 200)
            #expect(response.header("Preference-Applied") == "wait=5")
            #expect(response.json?["page"] == 1)
            #expect(response.json?["isRefreshing"] == false)
            #expect(response.json?["version"] == 3)
        }
    }

    @Test func upstreamFailuresLandInLastErrorAndKeepItems() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let wait = [("Prefer", "wait=10")]
            #expect(try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait).json?["page"] == 1)

            let cases: [(FakeFault, JSONValue, JSONValue)] = [
                (.http500, "upstream", 500), (.malformed, "decoding", nil), (.business, "business", nil),
            ]
            for (fault, kind, status) in cases {
                await app.setUpstream(FakeUpstreamBehavior(fault: fault))
                let state = try #require(
                    try await app.client.post("/v1/sessions/\(id)/products/load-more", headers: wait).json)
                #expect(state["lastError"]?["kind"] == kind, "\(fault)")
                #expect(state["lastError"]?["status"] == status, "\(fault)")
                #expect(state["items"]?.arrayValue?.count == 20, "items kept after \(fault)")
                #expect(state["isLoadingMore"] == false)
            }
            let business = try await app.client.get("/v1/sessions/\(id)/products").json
            #expect(business?["lastError"]?["message"] == "Product service is under maintenance")

            await app.setUpstream(FakeUpstreamBehavior())
            let recovered = try #require(
                try await app.client.post("/v1/sessions/\(id)/products/load-more", headers: wait).json)
            #expect(recovered["lastError"] == .null)
            #expect(recovered["items"]?.arrayValue?.count == 40)
        }
    }

    @Test func networkFailureIsANetworkError() async throws {
        let refusing = try RefusingPort()
        try await withApp({ $0.productsURL = "http://127.0.0.1:\(refusing.port)" }) { app in
            let id = try await app.createSession()
            let state = try await app.client.post(
                "/v1/sessions/\(id)/products/refresh", headers: [("Prefer", "wait=10")]
            ).json
            #expect(state?["lastError"]?["kind"] == "network")
            #expect(state?["lastError"]?["status"] == .null)
            #expect(state?["items"] == [])
        }
    }

    @Test func cancelAbortsTheLoadAndRestoresTheList() async throws {
        try await withApp(via: .router) { app in
            await app.setUpstream(FakeUpstreamBehavior(latency: .seconds(30)))
            let id = try await app.createSession()
            #expect(try await app.client.post("/v1/sessions/\(id)/products/refresh").status == 202)
            #expect(try await app.client.get("/v1/sessions/\(id)/products").json?["isRefreshing"] == true)
            let cancelled = try await app.client.post("/v1/sessions/\(id)/products/cancel")
            #expect(cancelled.status == 200)
            #expect(cancelled.json?["isRefreshing"] == false)
            #expect(cancelled.json?["lastError"] == .null)
            #expect(cancelled.json?["items"] == [])
        }
    }

    @Test func resumeReplaysMissedPatchesOrSendsASnapshot() async throws {
        try await withApp({ $0.replay.patches = 4 }) { app in
            let id = try await app.createSession()
            let wait = [("Prefer", "wait=10")]
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait)  // versions 2, 3
            let current = try #require(try await app.client.get("/v1/sessions/\(id)/products").json)
            #expect(current["version"] == 3)

            // Resume from version 1 with the header: the two patches, in order, and nothing else first.
            let resumed = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/products/events", headers: [("Last-Event-ID", "1")]
            )
            let first = try #require(try await resumed.next())
            let second = try #require(try await resumed.next())
            #expect([first.event, second.event] == ["patch", "patch"])
            #expect([first.id, second.id] == ["2", "3"])
            resumed.close()

            // The query parameter works the same way; up to date means no event at all.
            let upToDate = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/products/events?lastEventId=3")
            upToDate.setTimeout(seconds: 0, microseconds: 300_000)
            await #expect(throws: TestClientError.self) { try await upToDate.next() }
            upToDate.close()

            // Past the ring (capacity 4): a fresh snapshot.
            for _ in 0..<3 { _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: wait) }
            let old = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/products/events", headers: [("Last-Event-ID", "1")]
            )
            let snapshot = try #require(try await old.next())
            #expect(snapshot.event == "snapshot")
            #expect(snapshot.json == (try await app.client.get("/v1/sessions/\(id)/products").json))
            old.close()
        }
    }

    @Test func snapshotFormatSendsFullStates() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/products/events?format=snapshot")
            #expect(try await stream.next()?.event == "snapshot")
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: [("Prefer", "wait=10")])
            let refreshing = try #require(try await stream.next())
            let loaded = try #require(try await stream.next())
            #expect(refreshing.event == "snapshot" && loaded.event == "snapshot")
            #expect(refreshing.json?["isRefreshing"] == true)
            #expect(loaded.json == (try await app.client.get("/v1/sessions/\(id)/products").json))
            #expect(loaded.id == "3")
            stream.close()

            let invalid = try await app.client.get("/v1/sessions/\(id)/products/events?format=xml")
            #expect(invalid.status == 400)
            #expect(invalid.errorCode == "invalid_field")
        }
    }

    @Test func deletingTheSessionEndsItsStreams() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/products/events")
            #expect(try await stream.next()?.event == "snapshot")
            #expect(try await app.client.request("DELETE", "/v1/sessions/\(id)").status == 204)
            #expect(try await stream.next() == nil, "the stream ended cleanly")

            let unknown = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/products/events")
            #expect(unknown.status == 404)
            #expect(try JSONParser.parse(unknown.errorBody)["error"]?["code"] == "session_not_found")
        }
    }

    @Test func keepaliveCommentsArrive() async throws {
        try await withApp({ $0.keepaliveInterval = .milliseconds(100) }) { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/products/events")
            #expect(try await stream.next()?.event == "snapshot")
            // NB: a few keep-alive intervals; the comments are read with the next event.
            try await Task.sleep(for: .milliseconds(350))
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh")
            _ = try await stream.next()
            #expect(stream.comments.contains("keepalive"))
            stream.close()
        }
    }

    @Test func shutdownEndsStreamsCleanly() async throws {
        let app = try await TestApplication.start()
        let id = try await app.createSession()
        let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/products/events")
        #expect(try await stream.next()?.event == "snapshot")
        await app.stop()
        #expect(try await stream.next() == nil, "the stream ended with its final chunk")
    }
}
