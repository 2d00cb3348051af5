import EventLoop
import EventStreams

#if canImport(Glibc)
import Glibc
#endif

/// The server's handling of a request without a socket: an ``InProcessRequest`` in, an ``InProcessResponse``
/// out, through the same ``RequestDispatcher`` as ``HTTPServer`` (checks before routing, the route, the body's
/// limits, the handler), the same error format, and the headers the server adds to every answer.
///
/// For router-mode tests (HummingbirdTesting's `.router`): they drive routes directly, without a port, a
/// connection or a reader thread. What only a connection has stays with ``HTTPServer`` and its socket tests:
/// framing, the head's size limit, the connection limit, deadlines, keep-alive, and a stream's back-pressure
/// and gzip encoding (an in-process stream is plain text into the caller's sink), and the access log (the
/// ``onRequest`` records are reported).
@LoopActor
public final class InProcessServer {
    /// The limits and error format in effect (those a connection needs are not used).
    public let configuration: HTTPServerConfiguration
    /// Headers added to every response and event stream (``HTTPServer/commonHeaders``).
    public var commonHeaders: [HTTPHeader]
    /// The `Cache-Control` of a response whose handler sets none (``HTTPServer/defaultCacheControl``).
    public var defaultCacheControl: String?
    /// Called after every request with its route, status and duration, as ``HTTPServer/onRequest``.
    public var onRequest: (@LoopActor (HTTPRequestRecord) -> Void)?

    private let dispatcher: RequestDispatcher
    private var requestIDs = RequestIDGenerator()

    /// A server answering with `router` under `configuration`.
    public init(configuration: HTTPServerConfiguration, router: Router) {
        self.configuration = configuration
        dispatcher = RequestDispatcher(router: router, configuration: configuration)
        commonHeaders = configuration.commonHeaders
    }

    /// Answers `request` as ``HTTPServer`` would on a connection; a deferred answer (`Prefer: wait`, a journal
    /// write, a session taken over) is awaited. NB: a ``HTTPHandlerResult/callback(_:)`` that never calls back is
    /// never answered, as on a connection until shutdown: there is no shutdown here to end the wait.
    public func respond(to request: InProcessRequest) async -> InProcessResponse {
        let started = configuration.clock.now
        let requestID = requestIDs.id(given: request.header("X-Request-ID"))
        guard let components = URIComponents(target: request.target) else {
            let error = configuration.errorResponder.response(for: .invalidPath)
            return answer(error, method: request.method, route: "unmatched", requestID: requestID, started: started)
        }
        let parsed = HTTPRequest(message: request, components: components, requestID: requestID, started: started)
        var result: HTTPHandlerResult
        do {
            result = try dispatcher.dispatch(parsed)
        } catch {
            return answer(errorResponse(error), to: parsed)
        }
        while true {
            switch result {
            case .response(let response):
                return answer(response, to: parsed)
            case .deferred(let operation):
                return answer(await operation(), to: parsed)
            case .callback(let start):
                let response = await withCheckedContinuation { continuation in
                    // NB: called at most once counts: later calls are ignored, as on a connection.
                    var answered = false
                    start { response in
                        guard !answered else { return }
                        answered = true
                        continuation.resume(returning: response)
                    }
                }
                return answer(response, to: parsed)
            case .later(let operation):
                do {
                    result = try await operation()
                } catch {
                    return answer(errorResponse(error), to: parsed)
                }
            case .stream(let start):
                report(parsed.routePattern, parsed.method, 200, requestID: requestID, started: started)
                return InProcessResponse(
                    status: 200, headers: streamHeaders(requestID: requestID), body: .stream(start))
            }
        }
    }

    /// The answer to a thrown error: an ``HTTPError`` as configured, anything else `500 internal_error`.
    private func errorResponse(_ error: any Error) -> HTTPResponse {
        configuration.errorResponder.response(for: error as? HTTPError ?? .internalError)
    }

    private func answer(_ response: HTTPResponse, to request: HTTPRequest) -> InProcessResponse {
        answer(
            response, method: request.method, route: request.routePattern, requestID: request.requestID,
            started: request.started)
    }

    /// `response` with the headers ``ResponseWriter`` adds on a connection, in its order, the framing aside:
    /// the response's own, `Content-Type: application/json` when it has a body and none, `X-Request-ID`, the
    /// common headers, the default `Cache-Control` when it sets none, `Date`.
    private func answer(
        _ response: HTTPResponse, method: HTTPMethod, route: String, requestID: String,
        started: ContinuousClock.Instant
    ) -> InProcessResponse {
        let hasBody = method != .head && response.status >= 200 && response.status != 204 && response.status != 304
        var headers = response.headers
        if hasBody && !headers.contains(where: { Self.named($0, "Content-Type") }) {
            headers.append(HTTPHeader("Content-Type", "application/json"))
        }
        headers.append(HTTPHeader("X-Request-ID", requestID))
        headers += commonHeaders
        if let defaultCacheControl, !response.headers.contains(where: { Self.named($0, "Cache-Control") }) {
            headers.append(HTTPHeader("Cache-Control", defaultCacheControl))
        }
        headers.append(HTTPHeader("Date", HTTPDate.format(time(nil))))
        report(route, method, response.status, requestID: requestID, started: started)
        return InProcessResponse(status: response.status, headers: headers, body: .bytes(hasBody ? response.body : []))
    }

    /// The head of an event stream, as ``ResponseWriter`` starts one on a connection (never gzip-encoded here).
    private func streamHeaders(requestID: String) -> [HTTPHeader] {
        var headers = [
            HTTPHeader("Content-Type", "text/event-stream"), HTTPHeader("Cache-Control", "no-cache"),
            HTTPHeader("X-Accel-Buffering", "no"),
        ]
        if configuration.compressStreams { headers.append(HTTPHeader("Vary", "Accept-Encoding")) }
        headers.append(HTTPHeader("X-Request-ID", requestID))
        headers += commonHeaders
        headers.append(HTTPHeader("Date", HTTPDate.format(time(nil))))
        return headers
    }

    private func report(
        _ route: String, _ method: HTTPMethod, _ status: Int, requestID: String, started: ContinuousClock.Instant
    ) {
        onRequest?(
            HTTPRequestRecord(route: route, method: method, status: status, duration: configuration.clock.now - started)
        )
    }

    private static func named(_ header: HTTPHeader, _ name: String) -> Bool {
        header.name.utf8.elementsEqual(name.utf8) { $0 | 0x20 == $1 | 0x20 }
    }
}
