import EventLoop

/// What the server does with a request once its head is parsed, up to and including its handler: the checks
/// before routing (canonical API paths, the `Origin` of a `POST`), the route, the body's size and media type,
/// then the handler. One place for both ways a request comes: ``HTTPServer`` (a connection) and
/// ``InProcessServer`` (router-mode tests).
@LoopActor
struct RequestDispatcher {
    private let router: Router
    private let maxBodySize: Int
    private let checksOrigin: Bool
    /// ``HTTPServerConfiguration/allowedOrigins``, lower-cased.
    private let allowedOrigins: Set<String>

    init(router: Router, configuration: HTTPServerConfiguration) {
        self.router = router
        maxBodySize = configuration.maxBodySize
        checksOrigin = configuration.checksOrigin
        allowedOrigins = Set(configuration.allowedOrigins.map { $0.lowercased() })
    }

    /// Routes `request` and runs its handler; sets its route pattern and parameters on the way. Throws the
    /// ``HTTPError`` to answer (or what the handler threw).
    func dispatch(_ request: HTTPRequest) throws -> HTTPHandlerResult {
        // NB: the API's paths only in canonical form, so a proxy's rules and the router agree on what a path is.
        if !request.hasCanonicalPath, request.segments.first == "v1" { throw HTTPError.notFound(request.path) }
        if request.method == .post, checksOrigin, let origin = request.header("Origin"),
            !isAllowed(origin: origin, host: request.header("Host"))
        {
            throw HTTPError.forbiddenOrigin(origin)
        }
        switch router.match(method: request.method, segments: request.segments) {
        case .notFound:
            throw HTTPError.notFound(request.path)
        case .methodNotAllowed(let pattern, let allowed):
            request.routePattern = pattern
            throw HTTPError.methodNotAllowed(request.method, allowed: allowed)
        case .found(let handler, let pattern, let parameters):
            request.routePattern = pattern
            request.parameters = parameters
            let bodyCount = request.bodyCount
            if bodyCount > maxBodySize {
                throw HTTPError.bodyTooLarge(limit: maxBodySize)
            }
            if bodyCount > 0 {
                let contentType = request.header("Content-Type") ?? ""
                if !RequestHead.isJSON(contentType) { throw HTTPError.unsupportedMediaType(contentType) }
            }
            return try handler(request)
        }
    }

    /// Whether a `POST` from a page of `origin` is served: the server's own origin (its authority, after the
    /// scheme, equal to the request's `Host`, without regard to case) or one allowed.
    private func isAllowed(origin: String, host: String?) -> Bool {
        let lowered = origin.lowercased()
        if allowedOrigins.contains(lowered) { return true }
        guard let host, let separator = lowered.utf8.firstRange(of: "://".utf8) else { return false }
        return lowered[separator.upperBound...] == host.lowercased()
    }
}
