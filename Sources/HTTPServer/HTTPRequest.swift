import CLibevent
import EventLoop
import JSON

#if canImport(Glibc)
import Glibc
#endif

/// An incoming request, valid on the loop until its response is sent.
///
/// Handlers see one type whichever way the request came: from a connection (evhttp's request, read in place:
/// no copy of its headers or body), or in process (an ``InProcessRequest``, for router-mode tests that drive the
/// routes without a socket, through ``InProcessServer``).
@LoopActor
public final class HTTPRequest {
    /// The method.
    public let method: HTTPMethod
    /// The path as received (without query). NB: made when asked (an error, a log): most requests never need
    /// it as a string of its own.
    public var path: String {
        if let rawPath = components.rawPath { return String(rawPath) }
        guard let raw, let target = evhttp_request_get_uri(raw) else { return "" }
        let length = min(components.pathLength, strlen(target))
        return String(decoding: UnsafeRawBufferPointer(start: target, count: length), as: UTF8.self)
    }
    /// Path parameters captured by the route pattern (`:id` → `parameters["id"]`).
    public internal(set) var parameters = PathParameters()
    /// The id of this request in logs and the `X-Request-ID` response header.
    public let requestID: String
    /// The route pattern that matched (or `unmatched`); the metrics label.
    public internal(set) var routePattern: String = "unmatched"

    /// The evhttp request, or nil for a request made in process.
    let raw: OpaquePointer?
    /// The head and body of a request made in process (nil for evhttp's). NB: boxed, so that an evhttp request
    /// carries one null reference for it, not an optional value of five words.
    private let box: InProcessRequest.Box?
    /// The connection's record (counted against the limit), when the server knows it.
    let connection: ConnectionRecord?
    private let components: URIComponents
    private var cachedQuery: [String: String]?
    /// When the server took the request (its duration in metrics and logs is measured from here).
    let started: ContinuousClock.Instant
    /// The server that sends the answer a ``HTTPHandlerResult/callback(_:)`` gives for this request: set while
    /// that answer is awaited, nil once it is given (``sendAnswer(_:)``).
    /// NB: here, not in an object of its own: the request lives until it is answered anyway, and the `respond` the
    /// handler gets is this request's method, whose context is the request (one allocation less a command that
    /// waits for the journal). It holds the server until the answer is given or the request dropped, as that
    /// object did. NB: no optional tuple with `started`: that is copied and tested through the runtime's generic
    /// value witnesses (~1.3k instructions a command more than this, callgrind).
    private var answeringServer: HTTPServer?

    init(
        raw: OpaquePointer, method: HTTPMethod, components: URIComponents, requestID: String,
        connection: ConnectionRecord?, started: ContinuousClock.Instant
    ) {
        self.raw = raw
        self.started = started
        self.box = nil
        self.method = method
        self.components = components
        self.requestID = requestID
        self.connection = connection
    }

    /// A request made in process: `message`'s head and body, its target split into `components`.
    init(message: InProcessRequest, components: URIComponents, requestID: String, started: ContinuousClock.Instant) {
        self.raw = nil
        self.started = started
        self.box = InProcessRequest.Box(message)
        self.method = message.method
        self.components = components
        self.requestID = requestID
        self.connection = nil
    }

    /// The request made in process.
    private var message: InProcessRequest? { box?.request }

    /// Whether the answer of a ``HTTPHandlerResult/callback(_:)`` is still awaited.
    var isAwaitingAnswer: Bool { answeringServer != nil }

    /// Makes ``sendAnswer(_:)`` send through `server` (``HTTPHandlerResult/callback(_:)``).
    func awaitAnswer(from server: HTTPServer) {
        answeringServer = server
    }

    /// Sends a ``HTTPHandlerResult/callback(_:)``'s answer: once, later calls are ignored.
    func sendAnswer(_ response: HTTPResponse) {
        guard let server = answeringServer else { return }
        answeringServer = nil
        server.answered(response, to: self)
    }

    /// The decoded path segments.
    public var segments: [String] { components.segments }

    /// Whether the path is canonical (``URIComponents/isCanonical``).
    public var hasCanonicalPath: Bool { components.isCanonical }

    /// Query parameters, decoded.
    public var query: [String: String] {
        if let cachedQuery { return cachedQuery }
        let parsed = components.queryParameters()
        cachedQuery = parsed
        return parsed
    }

    /// The value of a request header (case-insensitive), or nil.
    public func header(_ name: String) -> String? {
        guard let raw else { return message?.header(name) }
        return Self.header(name, of: raw)
    }

    /// NB: `nonisolated`, so the closure given to `withCString` does not check its executor on every call.
    nonisolated private static func header(_ name: String, of raw: OpaquePointer) -> String? {
        guard let headers = evhttp_request_get_input_headers(raw),
            let value = name.withCString({ evhttp_find_header(headers, $0) })
        else {
            return nil
        }
        return String(cString: value)
    }

    /// The number of body bytes received. A request whose reply has started as a stream has freed its body
    /// buffer: its body reads as empty from then on.
    public var bodyCount: Int {
        guard let raw else { return message?.body.count ?? 0 }
        guard let buffer = evhttp_request_get_input_buffer(raw) else { return 0 }
        return evbuffer_get_length(buffer)
    }

    /// The body bytes.
    public var body: [UInt8] {
        guard let raw else { return message?.body ?? [] }
        return Self.body(of: raw)
    }

    /// NB: `nonisolated`, so the closure that fills the array does not check its executor on every call.
    nonisolated private static func body(of raw: OpaquePointer) -> [UInt8] {
        guard let buffer = evhttp_request_get_input_buffer(raw) else { return [] }
        let count = evbuffer_get_length(buffer)
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            initialized = max(0, evbuffer_copyout(buffer, storage.baseAddress, count))
        }
    }

    /// The body parsed as JSON: `nil` when there is no body; throws `400 invalid_json` when it is not JSON.
    ///
    /// A key repeated within one object is `400 invalid_json` too: `{"text": "a", "text": "b"}` means "a" to
    /// some parsers and "b" to others, so a proxy or client library could check one value while we act on
    /// the other. Refusing it keeps one meaning for every accepted body.
    public func jsonBody() throws(HTTPError) -> JSONValue? {
        guard let raw else {
            guard let message else { return nil }
            return try message.body.withUnsafeBufferPointer { (bytes) throws(HTTPError) in
                try Self.decodeJSONBody(bytes)
            }
        }
        guard let buffer = evhttp_request_get_input_buffer(raw) else { return nil }
        let count = evbuffer_get_length(buffer)
        guard count > 0 else { return nil }
        // NB: pullup makes the body contiguous once, so the parser reads it in place without a copy.
        guard let start = evbuffer_pullup(buffer, -1) else { throw .invalidJSON("body unreadable") }
        return try Self.decodeJSONBody(UnsafeBufferPointer(start: start, count: count))
    }

    /// The JSON body as an object (absent body → empty object); `400` unless it is an object.
    public func jsonObjectBody() throws(HTTPError) -> JSONObject {
        try Self.jsonObject(jsonBody())
    }

    // MARK: Body decoding (pure: the fuzz target calls these with arbitrary bytes)

    /// What ``jsonBody()`` makes of `bytes`: nil when empty, the JSON value, or `400 invalid_json` (also for
    /// a key repeated within one object).
    package nonisolated static func decodeJSONBody(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) throws(HTTPError) -> JSONValue? {
        guard !bytes.isEmpty else { return nil }
        do {
            return try JSONParser.parse(bytes, rejectingDuplicateKeys: true)
        } catch {
            throw .invalidJSON(error.description)
        }
    }

    /// What ``jsonObjectBody()`` makes of `bytes`: an empty object when empty, the object, or `400 invalid_json`.
    package nonisolated static func decodeJSONObjectBody(
        _ bytes: UnsafeBufferPointer<UInt8>
    ) throws(HTTPError) -> JSONObject {
        try jsonObject(decodeJSONBody(bytes))
    }

    /// A decoded body as an object (none → empty object); `400 invalid_json` for any other value.
    private nonisolated static func jsonObject(_ value: JSONValue?) throws(HTTPError) -> JSONObject {
        guard let value else { return JSONObject() }
        guard let object = value.objectValue else {
            throw HTTPError(status: 400, code: .invalidJSON, message: "request body must be a JSON object")
        }
        return object
    }
}
