import JSON
import Testing
import VMHostTesting

/// `Idempotency-Key` on commands, without Redis (API.md, "Durable sessions and several nodes").
@Suite("Idempotency-Key")
struct IdempotencyTests {
    @Test func aRepeatAnswersTheFirstAnswerAgainAndDoesNotRunTheCommand() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let key = [("Idempotency-Key", "refresh-1")]
            let first = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: key)
            #expect(first.status == 202)
            #expect(first.header("Idempotent-Replayed") == nil)
            #expect(try await eventually { try await app.client.get("/v1/sessions/\(id)/products").json?["page"] == 1 })
            let loaded = try await app.client.get("/v1/sessions/\(id)/products").json
            let requests = await app.upstreamRequests("/products")

            let again = try await app.client.post("/v1/sessions/\(id)/products/refresh", headers: key)
            #expect(again.status == 202)
            #expect(again.json == first.json, "the first answer, byte for byte")
            #expect(again.header("Idempotent-Replayed") == "true")
            #expect(try await app.client.get("/v1/sessions/\(id)/products").json == loaded, "no new version")
            #expect(await app.upstreamRequests("/products") == requests, "the command did not run again")

            // Another key runs the command again.
            let other = try await app.client.post(
                "/v1/sessions/\(id)/products/refresh", headers: [("Idempotency-Key", "refresh-2")])
            #expect(other.status == 202)
            #expect(other.json != first.json)
        }
    }

    @Test func errorsAreAnswersToo() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let key = [("Idempotency-Key", "more")]
            let refused = try await app.client.post("/v1/sessions/\(id)/products/load-more", headers: key)
            #expect(refused.status == 409)
            #expect(refused.json?["error"]?["code"] == "command_disabled")
            let again = try await app.client.post("/v1/sessions/\(id)/products/load-more", headers: key)
            #expect(again.status == 409)
            #expect(again.json == refused.json)
            #expect(again.header("Idempotent-Replayed") == "true")
        }
    }

    @Test func theSameKeyWithAnotherBodyOrCommandIsRefused() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let key = [("Idempotency-Key", "k")]
            let text = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": "kittens"], headers: key)
            #expect(text.status == 200)
            #expect(text.json?["searchText"] == "kittens")

            // The same object with other white space is the same body.
            let same = try await app.client.request(
                "POST", "/v1/sessions/\(id)/search/text", headers: key + [("Content-Type", "application/json")],
                body: Array(#"{ "text" :  "kittens" }"#.utf8))
            #expect(same.status == 200)
            #expect(same.header("Idempotent-Replayed") == "true")

            for (path, body) in [
                ("/v1/sessions/\(id)/search/text", ["text": "puppies"] as JSONValue),
                ("/v1/sessions/\(id)/search/execute", ["text": "kittens"] as JSONValue),
            ] {
                let reused = try await app.client.post(path, json: body, headers: key)
                #expect(reused.status == 422)
                #expect(reused.json?["error"]?["code"] == "idempotency_key_reused")
            }
            #expect(try await app.client.get("/v1/sessions/\(id)/search").json?["searchText"] == "kittens")
        }
    }

    @Test func keysArePrintableASCIIUpTo255Characters() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            for bad in ["", String(repeating: "k", count: 256), "naïve", "tab\there"] {
                let response = try await app.client.post(
                    "/v1/sessions/\(id)/products/cancel", headers: [("Idempotency-Key", bad)])
                #expect(response.status == 400, "key \(bad.debugDescription)")
                #expect(response.json?["error"]?["code"] == "invalid_field")
            }
            let longest = try await app.client.post(
                "/v1/sessions/\(id)/products/cancel", headers: [("Idempotency-Key", String(repeating: "k", count: 255))]
            )
            #expect(longest.status == 200)
        }
    }

    @Test func aSessionRemembersItsLast256Keys() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            for index in 0..<257 {
                let response = try await app.client.post(
                    "/v1/sessions/\(id)/search/text", json: ["text": .string("t\(index)")],
                    headers: [("Idempotency-Key", "k\(index)")])
                #expect(response.status == 200)
            }
            // k0 was forgotten: it is a new key again, so another body is accepted; k1 is still remembered.
            let forgotten = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": "other"], headers: [("Idempotency-Key", "k0")])
            #expect(forgotten.status == 200)
            #expect(forgotten.header("Idempotent-Replayed") == nil)
            let remembered = try await app.client.post(
                "/v1/sessions/\(id)/search/text", json: ["text": "other"], headers: [("Idempotency-Key", "k2")])
            #expect(remembered.status == 422)
        }
    }

    @Test func aCommandThatChangesSeveralFieldsIsOneVersion() async throws {
        try await withApp(via: .router) { app in
            let id = try await app.createSession()
            let before = try #require(try await app.client.get("/v1/sessions/\(id)/search").json?["version"]?.intValue)
            let accepted = try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "kittens"])
            #expect(accepted.status == 202)
            #expect(accepted.json == ["version": .int(before + 1)], "text and loading in one version")
        }
    }
}
