import EventLoop
import EventStreams
import HTTPServer
import JSON
import Testing
import VMHostTesting

/// ``InProcessServer``: the server's request handling without a socket, on a router of its own (no VMHost).
@LoopActor
@Suite("In-process server")
struct InProcessServerTests {
    struct Failure: Error {}

    /// A server with one route per kind of handler result, plain-text errors, a 16-byte body limit, an origin
    /// check and `X-Common: 1` on every answer.
    static func makeServer() -> (InProcessServer, HandlerState) {
        let state = HandlerState()
        var router = Router()
        router.on(.get, "/items/:id") { request in
            .response(.json(["id": .string(request.parameters["id"] ?? ""), "q": .string(request.query["q"] ?? "")]))
        }
        router.on(.post, "/echo") { request in
            .response(
                .json(["body": try request.jsonBody() ?? .null, "agent": .string(request.header("user-agent") ?? "")]))
        }
        router.on(.get, "/cached") { _ in
            .response(HTTPResponse(status: 200, headers: [HTTPHeader("Cache-Control", "max-age=60")], body: [1]))
        }
        router.on(.get, "/later") { _ in .later { .response(.json(["later": true])) } }
        router.on(.get, "/later-failing") { _ in .later { throw HTTPError.notFound("/gone") } }
        router.on(.get, "/deferred") { _ in .deferred { .json(["deferred": true], status: 201) } }
        router.on(.get, "/called-back") { _ in
            .callback { respond in
                state.callbacks.append(respond)
                respond(.json(["first": true]))
                respond(.json(["second": true]))
            }
        }
        router.on(.get, "/throws") { _ in throw Failure() }
        router.on(.get, "/events") { _ in
            .stream { sink in sink.send(Array("data: hello\n\n".utf8)) }
        }
        let configuration = HTTPServerConfiguration(
            port: 0, maxBodySize: 16, checksOrigin: true, allowedOrigins: ["https://app.example"])
        let server = InProcessServer(configuration: configuration, router: router)
        server.commonHeaders = [HTTPHeader("X-Common", "1")]
        server.defaultCacheControl = "no-store"
        return (server, state)
    }

    static func body(_ response: InProcessResponse) -> [UInt8] {
        guard case .bytes(let bytes) = response.body else { return [] }
        return bytes
    }

    static func json(_ response: InProcessResponse) -> JSONValue? {
        try? JSONParser.parse(body(response))
    }

    @Test func routesParametersQueriesHeadersAndBodies() async throws {
        let (server, _) = Self.makeServer()
        var records: [HTTPRequestRecord] = []
        server.onRequest = { records.append($0) }

        let item = await server.respond(to: InProcessRequest(method: .get, target: "/items/a%2Fb?q=x%20y"))
        #expect(item.status == 200)
        #expect(Self.json(item) == ["id": "a/b", "q": "x y"])
        #expect(item.header("content-type") == "application/json")
        #expect(item.header("X-Common") == "1" && item.header("Cache-Control") == "no-store")
        #expect(item.header("X-Request-ID") != nil && item.header("Date") != nil)
        #expect(item.header("Content-Length") == nil, "no framing in process")
        #expect(records.map(\.route) == ["/items/:id"] && records.map(\.status) == [200])

        let echo = await server.respond(
            to: InProcessRequest(
                method: .post, target: "/echo",
                headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("User-Agent", "t")],
                body: Array(#"{"a":1}"#.utf8)))
        #expect(Self.json(echo) == ["body": ["a": 1], "agent": "t"], "headers are found without regard to case")

        let cached = await server.respond(to: InProcessRequest(method: .get, target: "/cached"))
        #expect(cached.headers.filter { $0.name == "Cache-Control" }.map(\.value) == ["max-age=60"])
        #expect(cached.header("Content-Type") == "application/json", "a body without a type is JSON")

        let head = await server.respond(to: InProcessRequest(method: .head, target: "/items/a"))
        #expect(head.status == 200 && Self.body(head).isEmpty, "HEAD is GET without the body")

        let given = await server.respond(
            to: InProcessRequest(method: .get, target: "/items/a", headers: [HTTPHeader("X-Request-ID", "abc-1")]))
        #expect(given.header("X-Request-ID") == "abc-1")
    }

    @Test func refusalsAreTheConfiguredErrors() async throws {
        let (server, _) = Self.makeServer()
        func expect(_ request: InProcessRequest, _ status: Int, _ code: String, _ comment: Comment? = nil) async {
            let response = await server.respond(to: request)
            #expect(response.status == status, comment)
            #expect(String(decoding: Self.body(response), as: UTF8.self).hasPrefix("\(code): "), comment)
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8", comment)
        }
        await expect(InProcessRequest(method: .get, target: "/nothing"), 404, "not_found")
        await expect(InProcessRequest(method: .get, target: "/items/%ZZ"), 400, "invalid_path")
        await expect(InProcessRequest(method: .put, target: "/items/a"), 405, "method_not_allowed")
        let allowed = await server.respond(to: InProcessRequest(method: .delete, target: "/items/a"))
        #expect(allowed.header("Allow") == "GET, HEAD")
        await expect(
            InProcessRequest(
                method: .post, target: "/echo", headers: [HTTPHeader("Content-Type", "text/plain")], body: [1]),
            415, "unsupported_media_type")
        await expect(
            InProcessRequest(
                method: .post, target: "/echo", headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array(#"{"padding": "0123456789"}"#.utf8)),
            413, "body_too_large")
        await expect(
            InProcessRequest(
                method: .post, target: "/echo", headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array("{".utf8)),
            400, "invalid_json")
        await expect(
            InProcessRequest(
                method: .post, target: "/echo",
                headers: [HTTPHeader("Host", "server.example"), HTTPHeader("Origin", "https://evil.example")]),
            403, "forbidden_origin")
        let own = await server.respond(
            to: InProcessRequest(
                method: .post, target: "/echo",
                headers: [HTTPHeader("Host", "server.example"), HTTPHeader("Origin", "http://server.example")]))
        #expect(own.status == 200, "the server's own origin")
        let listed = await server.respond(
            to: InProcessRequest(method: .post, target: "/echo", headers: [HTTPHeader("Origin", "https://APP.example")])
        )
        #expect(listed.status == 200, "an allowed origin, without regard to case")
        await expect(InProcessRequest(method: .get, target: "/throws"), 500, "internal_error")
        await expect(InProcessRequest(method: .get, target: "/later-failing"), 404, "not_found")
    }

    @Test func laterDeferredAndCallbackAnswersAreAwaited() async throws {
        let (server, state) = Self.makeServer()
        #expect(
            Self.json(await server.respond(to: InProcessRequest(method: .get, target: "/later"))) == ["later": true])
        let deferred = await server.respond(to: InProcessRequest(method: .get, target: "/deferred"))
        #expect(deferred.status == 201 && Self.json(deferred) == ["deferred": true])
        let calledBack = await server.respond(to: InProcessRequest(method: .get, target: "/called-back"))
        #expect(Self.json(calledBack) == ["first": true], "the first call answers; later ones are ignored")
        #expect(state.callbacks.count == 1)
    }

    @Test func aStreamIsHandedToTheCallersSink() async throws {
        let (server, _) = Self.makeServer()
        let response = await server.respond(to: InProcessRequest(method: .get, target: "/events"))
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/event-stream")
        #expect(response.header("Cache-Control") == "no-cache", "a stream's own, not the default")
        #expect(response.header("X-Common") == "1")
        guard case .stream(let start) = response.body else {
            Issue.record("no stream")
            return
        }
        let sink = FakeEventSink()
        start(sink)
        #expect(sink.takeEvents() == [ReadEvent(data: "hello")])
    }
}
