import EventLoop
import HTTPServer
import JSON

/// A client of an ``InProcessServer``: requests go to the server's request handling directly, with no socket,
/// connection or reader thread (router mode, like HummingbirdTesting's `.router`). Responses come back as the
/// socket client reads them (``TestHTTPResponse``), so a test's assertions do not depend on the mode.
///
/// A request carries `Host: 127.0.0.1` (the origin check compares it), and a JSON body its `Content-Type`, as
/// ``TestHTTPClient`` sends them.
public struct InProcessClient: HTTPTestClient {
    /// The server answering.
    public let server: InProcessServer

    /// A client of `server`.
    public init(server: InProcessServer) {
        self.server = server
    }

    public func send(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, json: JSONValue?
    ) async throws -> TestHTTPResponse {
        let request = try Self.makeRequest(method, path, headers: headers, body: body, json: json)
        return await Self.respond(server, request)
    }

    /// Opens an event stream in process: the stream's events go into an in-memory sink the test reads.
    @LoopActor
    public func openStream(_ path: String, headers: [(String, String)] = []) async throws -> InProcessEventStream {
        let request = try Self.makeRequest(
            "GET", path, headers: [("Accept", "text/event-stream")] + headers, body: nil, json: nil)
        let response = await server.respond(to: request)
        return InProcessEventStream(response)
    }

    @LoopActor
    private static func respond(_ server: InProcessServer, _ request: InProcessRequest) async -> TestHTTPResponse {
        let response = await server.respond(to: request)
        let headers = response.headers.map { (name: $0.name, value: $0.value) }
        switch response.body {
        case .bytes(let bytes):
            return TestHTTPResponse(status: response.status, headers: headers, body: bytes)
        case .stream(let start):
            // NB: a stream asked for as a plain request: its first events are the body, then the client goes away.
            let sink = FakeEventSink()
            start(sink)
            let body = sink.takeBytes()
            sink.clientCloses()
            return TestHTTPResponse(status: response.status, headers: headers, body: body)
        }
    }

    private static func makeRequest(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, json: JSONValue?
    ) throws -> InProcessRequest {
        guard let method = HTTPMethod(rawValue: method) else {
            throw TestClientError("\(method): not a method the in-process server knows (test it on a socket)")
        }
        var lines = [HTTPHeader("Host", "127.0.0.1")] + headers.map { HTTPHeader($0.0, $0.1) }
        var payload = body ?? []
        if let json {
            payload = json.serializedBytes
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                lines.append(HTTPHeader("Content-Type", "application/json"))
            }
        }
        return InProcessRequest(method: method, target: path, headers: lines, body: payload)
    }
}

/// An event stream opened in process: its head, and its events as they are written into an in-memory sink
/// (``FakeEventSink``: the test decides when the reader stalls, drains or goes away).
@LoopActor
public final class InProcessEventStream {
    /// The status.
    public let status: Int
    /// The head's header lines.
    public let headers: [(name: String, value: String)]
    /// The body of a non-200 answer.
    public let errorBody: [UInt8]
    /// The sink the stream writes to; nil when the request was not answered with a stream.
    public let sink: FakeEventSink?

    init(_ response: InProcessResponse) {
        status = response.status
        headers = response.headers.map { (name: $0.name, value: $0.value) }
        switch response.body {
        case .bytes(let bytes):
            errorBody = bytes
            sink = nil
        case .stream(let start):
            errorBody = []
            let sink = FakeEventSink()
            self.sink = sink
            start(sink)
        }
    }

    /// A header value, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The events written since the last call.
    public func takeEvents() -> [ReadEvent] {
        sink?.takeEvents() ?? []
    }

    /// The client goes away.
    public func close() {
        sink?.clientCloses()
    }
}
