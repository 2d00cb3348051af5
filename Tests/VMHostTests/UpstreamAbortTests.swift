import Testing
import VMHostTesting

/// The upstream side of cancellation: a bare TCP server stands in for Flickr and watches its connections.
@Suite("Upstream sees aborted transfers")
struct UpstreamAbortTests {
    @Test func cancelAndLatestWinsCloseTheUpstreamConnection() async throws {
        let listener = try TestListener()
        try await withApp({ $0.flickrURL = "http://127.0.0.1:\(listener.port)/services/rest/" }) { app in
            let id = try await app.createSession()

            // A search in flight, then cancel: the upstream connection closes.
            #expect(
                try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "kittens"]).status == 202)
            let first = try await offPool { try listener.accept() }
            let head = try await offPool { try first.readRequestHead() }
            #expect(head.hasPrefix("GET /services/rest/?method=flickr.photos.search"))
            #expect(head.contains("text=kittens"))
            #expect(try await app.client.post("/v1/sessions/\(id)/search/cancel").status == 200)
            #expect(try await offPool { first.waitForPeerClose(timeoutSeconds: 5) }, "cancel aborted the transfer")

            // A search replaced by a newer one: the first transfer is aborted, the second goes out.
            #expect(
                try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "sunsets"]).status == 202)
            let replaced = try await offPool { try listener.accept() }
            _ = try await offPool { try replaced.readRequestHead() }
            #expect(
                try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "puppies"]).status == 202)
            #expect(try await offPool { replaced.waitForPeerClose(timeoutSeconds: 5) }, "latest wins")
            let latest = try await offPool { try listener.accept() }
            let latestHead = try await offPool { try latest.readRequestHead() }
            #expect(latestHead.contains("text=puppies"))
            _ = try await app.client.post("/v1/sessions/\(id)/search/cancel")
        }
    }
}
