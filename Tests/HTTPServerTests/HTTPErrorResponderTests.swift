import EventLoop
import HTTPServer
import Testing
import VMHostTesting

@LoopActor
@Suite("Error rendering handed in by the application")
struct HTTPErrorResponderTests {
    @Test func plainTextByDefault() async throws {
        let (server, _) = makeServer()
        let port = try server.start()
        let response = try await TestHTTPClient(port: port).get("/nowhere")
        #expect(response.status == 404)
        #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(response.text == "not_found: no resource at /nowhere\n")
        await server.shutdown()
    }

    @Test func theConfiguredResponderRendersEveryErrorAndTheServerAddsItsHeaders() async throws {
        let responder = HTTPErrorResponder { error in
            HTTPResponse(
                status: error.status, headers: [HTTPHeader("Content-Type", "application/problem+json")],
                body: Array(#"{"type":"\#(error.code.rawValue)","status":\#(error.status)}"#.utf8)
            )
        }
        let (server, _) = makeServer(HTTPServerConfiguration(port: 0, errorResponder: responder))
        let port = try server.start()
        let client = TestHTTPClient(port: port)

        let notAllowed = try await client.post("/hello")
        #expect(notAllowed.status == 405)
        #expect(notAllowed.header("Content-Type") == "application/problem+json")
        #expect(notAllowed.json == ["type": "method_not_allowed", "status": 405])
        #expect(notAllowed.header("Allow") == "GET, HEAD", "the error's own header follows the rendered ones")

        let badPath = try await client.get("/hello%zz")
        #expect(badPath.json == ["type": "invalid_path", "status": 400])
        await server.shutdown()
    }
}
