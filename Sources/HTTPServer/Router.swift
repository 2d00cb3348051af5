import EventLoop

/// A route handler: runs on the loop with the request; throws ``HTTPError`` for error answers (any other
/// error becomes `500 internal_error`).
public typealias HTTPHandler = @LoopActor (HTTPRequest) throws -> HTTPHandlerResult

/// Maps method and path patterns such as `/v1/sessions/:id/search` to handlers.
///
/// A path that matches with another method answers `405` with `Allow`; no match answers `404 not_found`.
/// `HEAD` falls back to the `GET` handler.
public struct Router: Sendable {
    struct Route: Sendable {
        /// The pattern as written, used as the metrics label.
        var pattern: String
        var segments: [Segment]
        /// A route has one to three methods: a list, not a dictionary (hashing the method on every request cost
        /// more than scanning three).
        var handlers: [(method: HTTPMethod, handler: HTTPHandler)]

        func handler(for method: HTTPMethod) -> HTTPHandler? {
            for entry in handlers where entry.method == method { return entry.handler }
            return nil
        }

        var methods: [HTTPMethod] { handlers.map(\.method).sorted { $0.rawValue < $1.rawValue } }

        /// Whether `values` (as many as `segments`) match: equal literals, non-empty parameters.
        func matches(_ values: [String]) -> Bool {
            for (segment, value) in zip(segments, values) {
                switch segment {
                case .literal(let literal): if literal != value { return false }
                case .parameter: if value.isEmpty { return false }
                }
            }
            return true
        }
    }

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// The result of matching a request.
    public enum Match {
        case found(handler: HTTPHandler, pattern: String, parameters: PathParameters)
        case methodNotAllowed(pattern: String, allowed: [HTTPMethod])
        case notFound
    }

    private var routes: [Route] = []

    /// Creates an empty router.
    public init() {}

    /// Adds a handler for `method` on `pattern` (segments starting with `:` are parameters).
    public mutating func on(_ method: HTTPMethod, _ pattern: String, handler: @escaping HTTPHandler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.hasPrefix(":") ? Segment.parameter(String(part.dropFirst())) : Segment.literal(String(part))
        }
        if let index = routes.firstIndex(where: { $0.segments == segments }) {
            if let known = routes[index].handlers.firstIndex(where: { $0.method == method }) {
                routes[index].handlers[known].handler = handler
            } else {
                routes[index].handlers.append((method, handler))
            }
        } else {
            routes.append(Route(pattern: pattern, segments: segments, handlers: [(method, handler)]))
        }
    }

    /// Every route as registered: its pattern (e.g. `/v1/sessions/:id`) and its methods, without the implicit
    /// `HEAD` of a `GET`; in registration order. Read-only, for checks such as the OpenAPI coverage test.
    public var registeredRoutes: [(pattern: String, methods: [HTTPMethod])] {
        routes.map { route in (route.pattern, route.methods) }
    }

    /// Finds the handler for a decoded path split into segments.
    public func match(method: HTTPMethod, segments: [String]) -> Match {
        for route in routes where route.segments.count == segments.count && route.matches(segments) {
            // NB: parameters are collected only for the route that matches, not for every candidate (a dictionary
            // per candidate route was most of the routing cost of a command).
            var parameters = PathParameters()
            for (segment, value) in zip(route.segments, segments) {
                if case .parameter(let name) = segment { parameters.append(name, value) }
            }
            if let handler = route.handler(for: method) ?? (method == .head ? route.handler(for: .get) : nil) {
                return .found(handler: handler, pattern: route.pattern, parameters: parameters)
            }
            var allowed = route.methods
            if allowed.contains(.get) { allowed.append(.head) }
            return .methodNotAllowed(pattern: route.pattern, allowed: allowed)
        }
        return .notFound
    }
}
