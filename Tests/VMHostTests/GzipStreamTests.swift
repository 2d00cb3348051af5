import EventLoop
import JSON
import JSONPatch
import Testing
import VMHostTesting

/// Splits decoded SSE text into (event, data) pairs; comments and `retry` are skipped.
func parseEvents(_ text: String) -> [(event: String, data: String)] {
    text.split(separator: "\n\n").compactMap { block in
        var event = "message"
        var data: String?
        for line in block.split(separator: "\n") {
            if line.hasPrefix("event: ") { event = String(line.dropFirst(7)) }
            if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
        }
        return data.map { (event, $0) }
    }
}

@Suite("Gzip-encoded event streams")
struct GzipStreamTests {
    @Test func compressedPatchesDecodeLiveAndEndAsAValidGzipMember() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let wait = [("Prefer", "wait=10")]
            _ = try await app.client.post("/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: wait)
            let stream = try await RawConnection.open(port: app.port)
            try await stream.send(
                bytes(
                    "GET /v1/sessions/\(id)/search/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip, deflate, br\r\n\r\n"
                )
            )
            let head = try await stream.responseHead()
            #expect(head.status == 200)
            #expect(head.header("Content-Encoding") == "gzip")
            #expect(head.header("Vary") == "Accept-Encoding")
            let inflater = try GzipInflater()

            // The snapshot decodes from the first chunk alone: every event is flushed as it is written.
            let first = try #require(try await stream.nextChunk())
            let snapshotText = String(decoding: try inflater.inflate(first), as: UTF8.self)
            let snapshot = try #require(parseEvents(snapshotText).first)
            #expect(snapshot.event == "snapshot")
            var state = try JSONParser.parse(Array(snapshot.data.utf8))

            // A load-more: its patches arrive compressed (and much smaller than their text).
            _ = try await app.client.post("/v1/sessions/\(id)/search/load-more", headers: wait)
            let expected = try #require(try await app.client.get("/v1/sessions/\(id)/search").json)
            var wireBytes = 0
            var textBytes = 0
            while state != expected {
                let chunk = try #require(try await stream.nextChunk())
                wireBytes += chunk.count
                let text = try inflater.inflate(chunk)
                textBytes += text.count
                for event in parseEvents(String(decoding: text, as: UTF8.self)) {
                    #expect(event.event == "patch")
                    state = try JSONPatch.apply(JSONPatch.parse(JSONParser.parse(Array(event.data.utf8))), to: state)
                }
            }
            #expect(wireBytes * 3 < textBytes, "\(wireBytes) bytes on the wire for \(textBytes) of events")

            // Deleting the session ends the stream: the rest of the body completes the gzip member, whose
            // CRC-32 and length zlib checks.
            #expect(try await app.client.request("DELETE", "/v1/sessions/\(id)").status == 204)
            while let chunk = try await stream.nextChunk() {
                _ = try inflater.inflate(chunk)
            }
            #expect(inflater.ended)
        }
    }
}
