import Testing
import VMHostTesting

/// API answers carry `X-Content-Type-Options: nosniff` and `Cache-Control: no-store` (API.md, "What never leaves
/// the server"): session state is never kept by a shared or browser cache, and no answer is sniffed into HTML.
/// Event streams keep `Cache-Control: no-cache` (API.md, "State streams") and add nosniff; the web client and the
/// OpenAPI document keep their own caching.
@Suite("nosniff and no-store on API answers")
struct SecurityHeadersTests {
    @Test func everyAPIAnswerIsNosniffAndNoStore() async throws {
        try await withApp(via: .router) { app in
            let created = try await app.client.post("/v1/sessions")
            let id = try #require(created.json?["id"]?.stringValue)
            let answers = [
                ("created", created),
                ("session", try await app.client.get("/v1/sessions/\(id)")),
                ("command", try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "cats"])),
                ("bad body", try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": 5])),
                ("unknown session", try await app.client.get("/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA")),
                ("unknown path", try await app.client.get("/v1/nothing")),
                ("wrong method", try await app.client.request("PUT", "/v1/sessions")),
                ("healthz", try await app.client.get("/healthz")),
                ("deleted", try await app.client.request("DELETE", "/v1/sessions/\(id)")),
            ]
            for (name, answer) in answers {
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(name) \(answer.status)")
                #expect(answer.header("Cache-Control") == "no-store", "\(name) \(answer.status)")
                #expect(answer.headers.filter { $0.name.lowercased() == "cache-control" }.count == 1, "\(name)")
            }

            // The web client and the document keep their own caching, once; nosniff as well.
            for path in ["/", "/openapi.json"] {
                let answer = try await app.client.get(path)
                #expect(answer.status == 200)
                let caching = answer.headers.filter { $0.name.lowercased() == "cache-control" }
                #expect(caching.count == 1 && caching.first?.value != "no-store", "\(path): \(caching)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(path)")
            }
        }
    }

    /// The head of an event stream as written on a connection (``ResponseWriter``'s own).
    @Test func eventStreamsKeepNoCacheAndAreNosniff() async throws {
        try await withApp { app in
            let stream = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(try await app.createSession())/events")
            #expect(stream.headers.filter { $0.name.lowercased() == "cache-control" }.map(\.value) == ["no-cache"])
            #expect(stream.headers.first { $0.name.lowercased() == "x-content-type-options" }?.value == "nosniff")
            stream.close()
        }
    }
}
