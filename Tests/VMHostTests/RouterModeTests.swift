import EventLoop
import HTTPServer
import JSON
import Testing
import VMHostTesting

/// Router mode answers what the socket answers: the same request, sent to one application over a connection and
/// in process, gets the same status, body and headers (the framing and the per-answer `Date` and `X-Request-ID`
/// aside). What the suites moved to router mode assert holds on the socket too.
@Suite("Router mode answers as the socket does")
struct RouterModeTests {
    /// Header lines that differ between two answers or exist only on a connection.
    static let unequalHeaders: Set<String> = [
        "date", "x-request-id", "content-length", "connection", "transfer-encoding",
    ]

    /// The header lines to compare, lower-cased names, sorted.
    static func comparable(_ response: TestHTTPResponse) -> [String] {
        comparable(response.headers)
    }

    static func comparable(_ headers: [(name: String, value: String)]) -> [String] {
        headers.filter { !unequalHeaders.contains($0.name.lowercased()) }
            .map { "\($0.name.lowercased()): \($0.value)" }.sorted()
    }

    @Test func theSameRequestGetsTheSameAnswerBothWays() async throws {
        try await withApp({ $0.maxBodyBytes = 1024 }) { app in
            let inProcess = InProcessClient(server: await app.application.makeInProcessServer())
            let id = try await app.createSession()
            let json = [("Content-Type", "application/json")]
            let requests: [(String, String, [(String, String)], [UInt8]?)] = [
                ("GET", "/v1/sessions/\(id)", [], nil),
                ("GET", "/v1/sessions/\(id)/products", [], nil),
                ("GET", "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA", [], nil),
                ("GET", "/v1/nothing-here?with=query", [], nil),
                ("PUT", "/v1/sessions", [], nil),
                ("POST", "/v1/sessions/\(id)", [], nil),
                ("HEAD", "/v1/sessions/\(id)", [], nil),
                ("POST", "/v1/sessions/\(id)/products/refresh", [("Content-Type", "text/plain")], Array("x".utf8)),
                ("POST", "/v1/sessions/\(id)/products/refresh", json, Array("{\"unterminated".utf8)),
                ("POST", "/v1/sessions/\(id)/products/refresh", json, Array(#"{"a": 1, "a": 2}"#.utf8)),
                ("POST", "/v1/sessions/\(id)/products/load-more", [], nil),
                ("POST", "/v1/sessions/\(id)/search/text", json, Array(#"{"text": 5}"#.utf8)),
                (
                    "POST", "/v1/sessions/\(id)/search/text", [("Origin", "https://evil.example")] + json,
                    Array("{}".utf8)
                ),
                ("DELETE", "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA", [], nil),
                ("GET", "/healthz", [], nil),
                ("GET", "/openapi.json", [], nil),
                ("GET", "/", [], nil),
            ]
            for (method, path, headers, body) in requests {
                let socket = try await app.client.request(method, path, headers: headers, body: body)
                let routed = try await inProcess.request(method, path, headers: headers, body: body)
                let name = "\(method) \(path)"
                #expect(routed.status == socket.status, "\(name)")
                #expect(routed.body == socket.body, "\(name): \(routed.text) vs \(socket.text)")
                #expect(Self.comparable(routed) == Self.comparable(socket), "\(name)")
                #expect(routed.header("X-Request-ID") != nil && routed.header("Date") != nil, "\(name)")
            }

            // A command changes the state: each way sets its own text, and the answers carry the same headers.
            let command = try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "cats"])
            let routedCommand = try await inProcess.post("/v1/sessions/\(id)/search/text", json: ["text": "dogs"])
            #expect(command.status == 200 && routedCommand.status == 200)
            #expect(Self.comparable(routedCommand) == Self.comparable(command))
            #expect(routedCommand.json?["searchText"] == "dogs")
            #expect(
                try await app.client.get("/v1/sessions/\(id)/search").json?["searchText"] == "dogs", "one application")

            // A stream starts with the same head both ways.
            let socketStream = try await TestEventStream(port: app.port, path: "/v1/sessions/\(id)/search/events")
            let routedStream = try await inProcess.openStream("/v1/sessions/\(id)/search/events")
            let (routedStatus, routedHead) = await (routedStream.status, routedStream.headers)
            #expect(routedStatus == 200 && socketStream.status == 200)
            #expect(Self.comparable(routedHead) == Self.comparable(socketStream.headers))
            socketStream.close()
            await routedStream.close()

            // A client's own request id is kept both ways; a forged one is replaced both ways.
            for given in ["trace-7.a_B", "bad id\u{1}"] {
                let socket = try await app.client.get("/healthz", headers: [("X-Request-ID", given)])
                let routed = try await inProcess.get("/healthz", headers: [("X-Request-ID", given)])
                #expect(
                    (socket.header("X-Request-ID") == given) == (routed.header("X-Request-ID") == given), "\(given)")
            }
        }
    }

    @Test func aStreamInProcessCarriesEventsWhosePatchesReproduceTheState() async throws {
        try await withApp(via: .router) { app in try await Self.followStream(app) }
    }

    @LoopActor
    static func followStream(_ app: TestApplication) async throws {
        let client = InProcessClient(server: app.inProcess ?? app.application.makeInProcessServer())
        let id = try await app.createSession()
        let stream = try await client.openStream("/v1/sessions/\(id)/search/events")
        #expect(stream.status == 200)
        #expect(stream.header("Content-Type") == "text/event-stream")
        #expect(stream.header("Cache-Control") == "no-cache")
        #expect(stream.header("X-Content-Type-Options") == "nosniff")
        let opening = stream.takeEvents()
        #expect(opening.first?.retry != nil, "the reconnection delay first")
        #expect(opening.last?.event == "snapshot")
        var state = ClientState()
        for event in opening where event.retry == nil { try state.apply(event) }

        _ = try await client.post("/v1/sessions/\(id)/search/text", json: ["text": "kittens"])
        for event in stream.takeEvents() { try state.apply(event) }
        let served = try await client.get("/v1/sessions/\(id)/search")
        #expect(state.state == served.json, "the patches reproduce the state")
        #expect(state.state["searchText"] == "kittens")

        let unknown = try await client.openStream("/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/events")
        #expect(unknown.status == 404 && unknown.sink == nil)
        #expect(try JSONParser.parse(unknown.errorBody)["error"]?["code"] == "session_not_found")
        stream.close()
    }
}
