import FakeUpstream
import JSON
import Testing
import VMHost
import VMHostTesting

/// The Flickr API key appears in no response, error message or log line (API.md, "What never leaves the server"),
/// also when an upstream's `stat: fail` message echoes the request URL with its `api_key`.
@Suite("The Flickr API key never leaves the server", .serialized)
struct APIKeyRedactionTests {
    static let key = "0123abcdSECRETKEY4567"

    @Test func anUpstreamFailureEchoingTheKeyReachesNoClientOrLog() async throws {
        let upstream = try await SharedUpstream()
        let log = CapturedLog()
        try await withApp(
            {
                $0.flickrURL = upstream.baseURL + "/services/rest/"
                $0.productsURL = upstream.baseURL
                $0.flickrAPIKey = Self.key
                $0.logLevel = .trace
            }, log: log
        ) { app in
            let id = try await app.createSession()
            for fault in [FakeFault.business, .http500, .malformed] {
                await upstream.setFault(fault)
                let answer = try await app.client.post(
                    "/v1/sessions/\(id)/search/execute", json: ["text": .string("kittens \(fault)")],
                    headers: [("Prefer", "wait=10")])
                #expect(answer.status == 200)
                let state = try await app.client.get("/v1/sessions/\(id)")
                let message = state.json?["search"]?["lastError"]?["message"]?.stringValue ?? ""
                #expect(!message.isEmpty, "\(fault): the failure is reported")
                #expect(!state.text.contains(Self.key), "\(fault): \(message)")
                #expect(!answer.text.contains(Self.key))
                if fault == .business {
                    // The upstream's message did echo the request: the key was there, and is redacted.
                    #expect(message.contains("api_key=[redacted]"), "\(message)")
                }
            }
        }
        #expect(!log.text.contains(Self.key), "no log line holds the key")
        await upstream.shutdown()
    }
}

extension SharedUpstream {
    /// Makes the next Flickr answer `fault`.
    func setFault(_ fault: FakeFault) {
        fake.behavior = FakeUpstreamBehavior(fault: fault, faultCount: 1)
    }

}
