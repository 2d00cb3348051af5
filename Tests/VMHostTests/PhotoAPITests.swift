import FakeUpstream
import JSON
import JSONPatch
import Testing
import VMHostTesting

@Suite("Photo screen over HTTP and SSE")
struct PhotoAPITests {
    static let wait = [("Prefer", "wait=10")]
    static let initial: JSONValue = [
        "photoId": nil,
        "detail": ["status": "idle", "value": nil, "error": nil],
        "comments": ["status": "idle", "value": nil, "error": nil],
        "lastError": nil,
    ]

    /// `state` without its `version`.
    static func withoutVersion(_ state: JSONValue?) -> JSONValue? {
        guard var object = state?.objectValue else { return nil }
        object["version"] = nil
        return .object(object)
    }

    /// Searches "kittens"; returns the cells of the first page.
    static func search(_ app: TestApplication, session id: String) async throws -> [JSONValue] {
        let searched = try await app.client.post(
            "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: wait)
        return try #require(searched.json?["results"]?["value"]?["photos"]?.arrayValue)
    }

    /// Searches "kittens" and loads the counts of the first photos; returns their cells.
    static func searchedPhotos(_ app: TestApplication, session id: String) async throws -> [JSONValue] {
        let ids = try await search(app, session: id).prefix(6).compactMap { $0["id"] }
        #expect(ids.count == 6)
        let visible = try await app.client.post(
            "/v1/sessions/\(id)/search/visible", json: ["photoIds": .array(ids)], headers: wait)
        return try #require(visible.json?["results"]?["value"]?["photos"]?.arrayValue).prefix(6).map { $0 }
    }

    @Test func aPhotoOpenedFromTheSearchResultsLoadsItsDetailAndComments() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            #expect(try await app.client.get("/v1/sessions/\(id)/photo").json == Self.initial.merging(["version": 1]))

            let photos = try await Self.searchedPhotos(app, session: id)
            // NB: the photo with the most comments, so that their mapping is checked too.
            let cell = try #require(photos.max { ($0["comments"]?.intValue ?? 0) < ($1["comments"]?.intValue ?? 0) })
            let photoID = try #require(cell["id"]?.stringValue)
            let opened = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": .string(photoID)], headers: Self.wait)
            #expect(opened.status == 200)
            #expect(opened.header("Preference-Applied") == "wait=10")
            let state = try #require(opened.json)
            #expect(state["photoId"] == .string(photoID))
            #expect(state["lastError"] == .null)

            #expect(state["detail"]?["status"] == "loaded")
            #expect(state["detail"]?["error"] == .null)
            let detail = try #require(state["detail"]?["value"])
            #expect(detail["id"] == .string(photoID))
            #expect(detail["title"] == cell["title"], "the search and getInfo agree")
            let small = try #require(cell["url"]?.stringValue)
            #expect(detail["imageUrl"] == .string(String(small.dropLast("_m.jpg".count)) + "_b.jpg"))
            #expect(detail["pageUrl"]?.stringValue?.hasPrefix("https://www.flickr.com/photos/") == true)
            #expect(detail["pageUrl"]?.stringValue?.hasSuffix("/\(photoID)/") == true)
            #expect(detail["owner"]?.stringValue?.isEmpty == false)
            #expect(detail["tags"]?.arrayValue != nil)
            #expect(detail["views"]?.intValue != nil, "views is a number even when Flickr sends a string")
            let description = try #require(detail["description"]?.stringValue)
            for markup in ["<a ", "<b>", "<br", "<p>", "&amp;", "&quot;", "&#"] {
                #expect(!description.contains(markup), "plain text: \(description)")
            }
            if let takenAt = detail["takenAt"]?.stringValue {
                #expect(takenAt.count == 19 && Array(takenAt)[10] == "T", "\(takenAt)")
            }

            #expect(state["comments"]?["status"] == "loaded")
            let comments = try #require(state["comments"]?["value"]?.arrayValue)
            #expect(.int(comments.count) == cell["comments"], "as many comments as the search's count")
            #expect(!comments.isEmpty)
            for comment in comments {
                #expect(comment["id"]?.stringValue?.isEmpty == false)
                #expect(comment["author"]?.stringValue?.isEmpty == false)
                #expect(comment["createdAt"]?.stringValue?.hasSuffix("Z") == true)
                #expect(comment["text"]?.stringValue?.contains("<a ") == false)
                #expect(comment["text"]?.stringValue?.contains("&amp;") == false)
            }
            #expect(try await app.client.get("/v1/sessions/\(id)/photo").json == state)
            #expect(await app.upstreamRequests("flickr.photos.getInfo") == 1)

            let closed = try await app.client.post("/v1/sessions/\(id)/photo/close")
            #expect(closed.status == 200)
            #expect(Self.withoutVersion(closed.json) == Self.initial)
            #expect(closed.json?["version"]?.intValue ?? 0 > state["version"]?.intValue ?? 0)
        }
    }

    @Test func openAnswers202AndTheStateLoadsMeanwhile() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let photoID = try #require(try await Self.searchedPhotos(app, session: id).first?["id"])
            let accepted = try await app.client.post("/v1/sessions/\(id)/photo/open", json: ["photoId": photoID])
            #expect(accepted.status == 202)
            #expect(accepted.json == ["version": 2])
            #expect(
                try await eventually {
                    let state = try await app.client.get("/v1/sessions/\(id)/photo").json
                    return state?["detail"]?["status"] == "loaded" && state?["comments"]?["status"] == "loaded"
                })
        }
    }

    @Test func anUnknownPhotoFailsAsBusinessCode1() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let state = try #require(
                try await app.client.post(
                    "/v1/sessions/\(id)/photo/open", json: ["photoId": "12345"], headers: Self.wait
                ).json
            )
            let notFound: JSONValue = ["kind": "business", "message": "Photo not found", "status": nil, "code": 1]
            #expect(state["photoId"] == "12345")
            #expect(state["detail"] == ["status": "failed", "value": nil, "error": notFound])
            #expect(state["comments"] == ["status": "failed", "value": nil, "error": notFound])
            #expect(state["lastError"] == notFound)
        }
    }

    @Test func openNeedsANonEmptyPhotoId() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            for body: JSONValue in [[:], ["photoId": ""], ["photoId": 53_012_345_678], ["photoid": "1"]] {
                let refused = try await app.client.post("/v1/sessions/\(id)/photo/open", json: body)
                #expect(refused.status == 400, "\(body)")
                #expect(refused.errorCode == "invalid_field", "\(body)")
                #expect(refused.json?["error"]?["message"]?.stringValue?.contains("photoId") == true)
            }
            #expect(try await app.client.get("/v1/sessions/\(id)/photo").json?["version"] == 1, "nothing changed")
        }
    }

    @Test func aRepeatedOpenWithItsIdempotencyKeyIsAnsweredAgainNotRun() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let photoID = try #require(try await Self.search(app, session: id).first?["id"])
            let headers = Self.wait + [("Idempotency-Key", "open-1")]
            let first = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": photoID], headers: headers)
            #expect(first.status == 200)
            #expect(first.json?["detail"]?["status"] == "loaded")
            let requests = await app.upstreamRequests("flickr.photos.getInfo")

            let again = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": photoID], headers: headers)
            #expect(again.status == 200)
            #expect(again.header("Idempotent-Replayed") == "true")
            #expect(again.json == first.json)
            #expect(await app.upstreamRequests("flickr.photos.getInfo") == requests, "not opened again")
            #expect(try await app.client.get("/v1/sessions/\(id)/photo").json == first.json, "no new version")

            let reused = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": "12345"], headers: headers)
            #expect(reused.status == 422)
            #expect(reused.errorCode == "idempotency_key_reused")
        }
    }

    @Test func openingAnotherPhotoAbortsTheFirstTransfersAndCloseAbortsTheRest() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            // NB: photos whose counts were not loaded: `visible` would have cached their comments.
            let photos = try await Self.search(app, session: id)
            try #require(photos.count >= 2)
            let first = try #require(photos[0]["id"])
            let second = try #require(photos[1]["id"])
            await app.setUpstream(FakeUpstreamBehavior(latency: .seconds(30)))
            #expect(try await app.client.post("/v1/sessions/\(id)/photo/open", json: ["photoId": first]).status == 202)
            #expect(await eventually { await app.upstreamInFlight() == 2 })
            #expect(try await app.client.post("/v1/sessions/\(id)/photo/open", json: ["photoId": second]).status == 202)
            let loading = try #require(try await app.client.get("/v1/sessions/\(id)/photo").json)
            #expect(loading["photoId"] == second)
            #expect(loading["detail"] == ["status": "loading", "value": nil, "error": nil])
            #expect(loading["comments"] == ["status": "loading", "value": nil, "error": nil])
            #expect(
                await eventually { await app.upstreamInFlight() == 2 }, "the first photo's transfers are aborted")

            let closed = try await app.client.post("/v1/sessions/\(id)/photo/close")
            #expect(Self.withoutVersion(closed.json) == Self.initial)
            #expect(await eventually { await app.upstreamInFlight() == 0 }, "close aborts the transfers")
        }
    }

    @Test func thePhotoStreamsPatchesReproduceTheState() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/photo/events")
            #expect(stream.status == 200)
            let first = try #require(try await stream.next())
            #expect(first.event == "snapshot")
            #expect(first.id == "1")
            var state = try #require(first.json)
            #expect(state == (try await app.client.get("/v1/sessions/\(id)/photo").json))

            let photoID = try #require(try await Self.searchedPhotos(app, session: id).first?["id"])
            _ = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": photoID], headers: Self.wait)
            _ = try await app.client.post("/v1/sessions/\(id)/photo/close")
            _ = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": photoID], headers: Self.wait)
            let target = try #require(try await app.client.get("/v1/sessions/\(id)/photo").json)
            #expect(target["version"] == 8, "open, two loads, close, open, two loads")
            while state["version"] != target["version"] {
                let event = try #require(try await stream.next())
                #expect(event.event == "patch")
                state = try JSONPatch.apply(JSONPatch.parse(try #require(event.json)), to: state)
                #expect(event.id == state["version"]?.intValue.map(String.init))
            }
            #expect(state == target)
            stream.close()
        }
    }

    /// The multiplexed id of `states`: `search:{v},products:{v},photo:{v}`.
    static func multiplexedID(_ states: [String: JSONValue]) -> String {
        ["search", "products", "photo"].map { "\($0):\(states[$0]?["version"]?.intValue ?? 0)" }.joined(separator: ",")
    }

    @Test func theMultiplexedStreamCarriesThePhoto() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let stream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/events")
            var states: [String: JSONValue] = [:]
            for name in ["search", "products", "photo"] {
                let event = try #require(try await stream.next())
                #expect(event.event == "\(name).snapshot")
                let snapshot = try #require(event.json)
                states[name] = snapshot
                #expect(event.id == Self.multiplexedID(states))
            }
            #expect(Self.multiplexedID(states) == "search:1,products:1,photo:1")

            let photoID = try #require(try await Self.searchedPhotos(app, session: id).first?["id"])
            _ = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": photoID], headers: Self.wait)
            let session = try #require(try await app.client.get("/v1/sessions/\(id)").json)
            #expect(session["photo"]?["detail"]?["status"] == "loaded", "the session resource has the photo")
            #expect(session["photo"] == (try await app.client.get("/v1/sessions/\(id)/photo").json))
            var photoEvents = 0
            while ["search", "products", "photo"].contains(where: { states[$0]?["version"] != session[$0]?["version"] })
            {
                let event = try #require(try await stream.next())
                let parts = event.event.split(separator: ".").map(String.init)
                try #require(parts.count == 2 && parts[1] == "patch", "\(event.event)")
                let patch = try JSONPatch.parse(try #require(event.json))
                let before = try #require(states[parts[0]])
                states[parts[0]] = try JSONPatch.apply(patch, to: before)
                #expect(event.id == Self.multiplexedID(states))
                if parts[0] == "photo" { photoEvents += 1 }
            }
            #expect(photoEvents == 3, "open, then each load")
            for name in ["search", "products", "photo"] { #expect(states[name] == session[name], "\(name)") }
            stream.close()
        }
    }

    @Test func resumingTheMultiplexedStreamWithAndWithoutThePhotoPart() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            _ = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: Self.wait)  // products 1 → 3
            _ = try await app.client.post(
                "/v1/sessions/\(id)/photo/open", json: ["photoId": "12345"], headers: Self.wait)
            let session = try #require(try await app.client.get("/v1/sessions/\(id)").json)
            #expect(session["products"]?["version"] == 3)
            #expect(session["photo"]?["version"] == 4)

            // An id of a client that knows no photo: products replayed, then the photo's snapshot.
            let older = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/events", headers: [("Last-Event-ID", "search:1,products:1")]
            )
            var events: [TestServerSentEvent] = []
            for _ in 0..<3 { events.append(try #require(try await older.next())) }
            #expect(events.map(\.event) == ["products.patch", "products.patch", "photo.snapshot"])
            #expect(events[2].id == "search:1,products:3,photo:4")
            #expect(events[2].json == session["photo"])
            older.setTimeout(seconds: 0, microseconds: 300_000)
            await #expect(throws: TestClientError.self) { try await older.next() }
            older.close()

            // With its part: the photo's missed patches.
            let resumed = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/events",
                headers: [("Last-Event-ID", "search:1,products:3,photo:1")]
            )
            var photo = Self.initial.merging(["version": 1])
            for version in 2...4 {
                let event = try #require(try await resumed.next())
                #expect(event.event == "photo.patch")
                #expect(event.id == "search:1,products:3,photo:\(version)")
                photo = try JSONPatch.apply(JSONPatch.parse(try #require(event.json)), to: photo)
            }
            #expect(photo == session["photo"])
            resumed.setTimeout(seconds: 0, microseconds: 300_000)
            await #expect(throws: TestClientError.self) { try await resumed.next() }
            resumed.close()
        }
    }
}

extension JSONValue {
    /// This object with the members of `other` added (replacing those of the same name).
    func merging(_ other: JSONValue) -> JSONValue {
        guard var object = objectValue, let extra = other.objectValue else { return self }
        for (key, value) in extra { object[key] = value }
        return .object(object)
    }
}
