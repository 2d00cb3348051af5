import EventLoop
import EventStreams
import JSON

/// One response header.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    /// Creates a header.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A complete (non-streaming) HTTP response.
public struct HTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers, in order. The server adds `Content-Type` only if absent here, and always adds the framing
    /// (`Content-Length`), `Date` and `X-Request-ID` itself: those are not set here.
    public var headers: [HTTPHeader]
    /// The body bytes (not sent for HEAD, 204 and 304).
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ value: JSONValue, status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
        json(bytes: value.serializedBytes, status: status, headers: headers)
    }

    /// A JSON response from already-serialised bytes (a state channel's cached encoding).
    public static func json(bytes: [UInt8], status: Int = 200, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: headers.isEmpty ? jsonContentType : jsonContentType + headers, body: bytes
        )
    }

    /// One array shared by every JSON response without headers of its own (an array per response cost an
    /// allocation per GET).
    private static let jsonContentType = [HTTPHeader("Content-Type", "application/json")]

    /// `204 No Content`.
    public static var noContent: HTTPResponse { HTTPResponse(status: 204) }

    /// The value of a header, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What a route handler produces.
public enum HTTPHandlerResult {
    /// A complete response, sent at once.
    case response(HTTPResponse)
    /// A Server-Sent Events stream: the server starts the chunked reply and hands the stream to the closure.
    /// On a connection the sink is its ``ServerSentEventStream``; in process (``InProcessServer``), the caller's.
    case stream(@LoopActor (any EventSink) -> Void)
    /// A response computed asynchronously on the loop (for example `Prefer: wait`).
    case deferred(@LoopActor () async -> HTTPResponse)
    /// A response that code on the loop sends later by calling `respond` once (later calls are ignored), with
    /// no task: the cheap form of ``deferred(_:)`` for a response that waits on a callback (a journal write).
    /// Shutdown waits for it like for a deferred response.
    case callback(@LoopActor (_ respond: @escaping @LoopActor (HTTPResponse) -> Void) -> Void)
    /// A result known only after an asynchronous step (a session loaded from the journal): any of these,
    /// a stream included; a thrown ``HTTPError`` is answered like a handler's.
    case later(@LoopActor () async throws -> HTTPHandlerResult)
}
