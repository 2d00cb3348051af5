import CLibevent
import EventLoop
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// What the server reports about each finished request (for metrics).
public struct HTTPRequestRecord: Sendable {
    /// The matched route pattern, or `unmatched`.
    public var route: String
    /// The request method.
    public var method: HTTPMethod
    /// The response status.
    public var status: Int
    /// Time from dispatch to the response (or to the start of a stream).
    public var duration: Duration
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// An HTTP/1.1 server on libevent's evhttp, running on the loop.
///
/// It routes requests with a ``Router``, enforces body and header limits and content types, answers errors
/// in the API's JSON format, serves Server-Sent Events streams, and shuts down gracefully.
@LoopActor
public final class HTTPServer {
    /// The limits and address in effect.
    public let configuration: HTTPServerConfiguration
    /// Called after every request with its route, status and duration.
    public var onRequest: (@LoopActor (HTTPRequestRecord) -> Void)?

    private let router: Router
    private let logger: Logger
    private var http: OpaquePointer?
    private var boundSocket: OpaquePointer?
    /// Connections that have sent a request and are still open (for the connection limit); evhttp calls
    /// back when each closes.
    private var connections: Set<OpaquePointer> = []
    /// Connections answered `503 overloaded`, until they close.
    private var refusedConnections: Set<OpaquePointer> = []
    /// Deadlines for request heads (slowloris); created in ``start()``.
    private var headDeadlines: RequestHeadDeadlines?
    /// Open event streams by their connection (a connection carries at most one stream at a time).
    private var streams: [OpaquePointer: ServerSentEventStream] = [:]
    private var deferred: [Int: Task<Void, Never>] = [:]
    private var nextDeferredID = 0
    private var keepaliveTimer: LoopTimer?
    private let requestIDPrefix: String
    private var requestCounter: UInt64 = 0
    /// A reusable evbuffer for building replies; evhttp moves its contents out on every send.
    let scratchBuffer: OpaquePointer

    /// The bound port (after ``start()``).
    public private(set) var port: Int = 0

    /// Creates a stopped server.
    public init(configuration: HTTPServerConfiguration, router: Router, logger: Logger) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.scratchBuffer = evbuffer_new()
        var generator = SystemRandomNumberGenerator()
        requestIDPrefix = String(UInt32.random(in: .min ... .max, using: &generator), radix: 16)
    }

    isolated deinit {
        // NB: evhttp_free runs the close callbacks, which must not reach a server being deinitialised.
        for connection in connections.union(refusedConnections) { evhttp_connection_set_closecb(connection, nil, nil) }
        if let http { evhttp_free(http) }
        headDeadlines?.releaseAll()
        evbuffer_free(scratchBuffer)
        free(defaultContentType)
    }

    /// NB: evhttp keeps this pointer without copying it (found by AddressSanitizer), so it must outlive the
    /// server; a Swift string literal passed directly would be a temporary.
    private let defaultContentType = strdup("application/json")

    /// The keepalive comment, compressed once for gzip streams.
    private let keepaliveComment = ServerSentEventChunk(Array(": keepalive\n\n".utf8))

    /// Number of open event streams.
    public var openStreamCount: Int { streams.count }

    /// Number of connections counted against ``HTTPServerConfiguration/maxConnections``.
    public var openConnectionCount: Int { connections.count }

    /// Binds and starts accepting connections.
    /// - Returns: the bound port.
    /// - Throws: ``HTTPServerError`` when the address is invalid or cannot be bound.
    @discardableResult
    public func start() throws(HTTPServerError) -> Int {
        guard let http = evhttp_new(EventLoop.shared.base) else { throw HTTPServerError(description: "evhttp_new failed") }
        self.http = http
        evhttp_set_allowed_methods(http, HTTPMethod.evhttpAllMethods)
        evhttp_set_max_body_size(http, configuration.maxBodySize * 16)
        evhttp_set_max_headers_size(http, configuration.maxHeadersSize)
        var idle = timeval(configuration.idleTimeout)
        evhttp_set_timeout_tv(http, &idle)
        evhttp_set_default_content_type(http, defaultContentType)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let deadlines = RequestHeadDeadlines(timeout: configuration.idleTimeout)
        headDeadlines = deadlines
        deadlines.start()
        evhttp_set_bevcb(http, { base, context in
            guard let base, let context else { return nil }
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            return LoopActor.assumeIsolated { server.headDeadlines?.makeBufferEvent(base: base) }
        }, context)
        evhttp_set_gencb(http, { request, context in
            guard let request, let context else { return }
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            LoopActor.assumeIsolated { server.handle(request) }
        }, context)

        var address = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let hostPort = configuration.host.contains(":")
            ? "[\(configuration.host)]:\(configuration.port)" : "\(configuration.host):\(configuration.port)"
        // NB: libevent's parser rejects port 0, so parse with port 1 and put the real port in afterwards.
        let parseable = configuration.host.contains(":") ? "[\(configuration.host)]:1" : "\(configuration.host):1"
        let parsed = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { evutil_parse_sockaddr_port(parseable, $0, &length) }
        }
        guard parsed == 0, (0...65535).contains(configuration.port) else {
            throw HTTPServerError(description: "invalid listen address \(hostPort)")
        }
        let networkPort = UInt16(configuration.port).bigEndian
        withUnsafeMutablePointer(to: &address) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = networkPort }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = networkPort }
            }
        }
        let listener = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                evconnlistener_new_bind(
                    EventLoop.shared.base, nil, nil, UInt32(LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE),
                    Int32(configuration.backlog), $0, length
                )
            }
        }
        guard let listener else {
            throw HTTPServerError(description: "cannot listen on \(hostPort): \(String(cString: strerror(errno)))")
        }
        boundSocket = evhttp_bind_listener(http, listener)
        port = Self.localPort(of: evconnlistener_get_fd(listener)) ?? configuration.port

        let timer = LoopTimer(repeats: true) { [weak self] in self?.sendKeepalives() }
        timer.schedule(after: configuration.keepaliveInterval)
        keepaliveTimer = timer
        return port
    }

    /// Stops accepting new connections; existing ones continue.
    public func stopAccepting() {
        if let http, let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)
            self.boundSocket = nil
        }
    }

    /// Graceful shutdown: stop accepting, end every stream, cancel and answer deferred requests, let the
    /// loop flush output (bounded by `flushTimeout`), then free the server and its connections.
    public func shutdown(flushTimeout: Duration = .seconds(1)) async {
        stopAccepting()
        keepaliveTimer?.cancel()
        keepaliveTimer = nil
        for stream in Array(streams.values) {
            stream.end()
        }
        for task in deferred.values {
            task.cancel()
        }
        let deadline = ContinuousClock.now.advanced(by: flushTimeout)
        while !deferred.isEmpty, ContinuousClock.now < deadline {
            try? await LoopClock().sleep(for: .milliseconds(10))
        }
        // NB: give the loop a moment to write the final chunks before evhttp_free closes the sockets.
        try? await LoopClock().sleep(for: .milliseconds(50))
        if let http {
            evhttp_free(http)
            self.http = nil
        }
        headDeadlines?.releaseAll()
    }

    // MARK: Request handling

    private func handle(_ raw: OpaquePointer) {
        let started = ContinuousClock.now
        guard let method = HTTPMethod(evhttp: evhttp_request_get_command(raw)),
            let uri = evhttp_request_get_uri(raw)
        else {
            evhttp_send_error(raw, 400, "Bad Request")
            return
        }
        if Self.hasConflictingContentLengths(raw) {
            // NB: request smuggling: evhttp takes the first of several Content-Length headers, a proxy in
            // front may take another. RFC 9112 §6.3: answer 400 and close, as evhttp does for other bad framing.
            evhttp_send_error(raw, 400, "Bad Request")
            return
        }
        let requestID = makeRequestID(raw)
        guard admit(raw) else {
            let error = HTTPError.overloaded("too many connections; try again later")
            evhttp_add_header(evhttp_request_get_output_headers(raw), "Connection", "close")
            evhttp_add_header(evhttp_request_get_output_headers(raw), "Retry-After", "1")
            send(error.response, raw: raw, requestID: requestID, method: method)
            report(route: "unmatched", method: method, status: 503, requestID: requestID, started: started)
            return
        }
        guard let components = URIComponents(target: Self.originForm(String(cString: uri))) else {
            let error = HTTPError(status: 400, code: "invalid_path", message: "malformed request path")
            send(error.response, raw: raw, requestID: requestID, method: method)
            report(route: "unmatched", method: method, status: 400, requestID: requestID, started: started)
            return
        }
        let request = HTTPRequest(raw: raw, method: method, components: components, requestID: requestID)
        let result: HTTPHandlerResult
        do {
            result = try dispatch(request)
        } catch let error as HTTPError {
            respond(error.response, to: request, started: started)
            return
        } catch {
            logger.error("handler failed", metadata: ["request-id": "\(requestID)", "error": "\(error)"])
            let failure = HTTPError(status: 500, code: "internal_error", message: "the server failed to handle the request")
            respond(failure.response, to: request, started: started)
            return
        }
        switch result {
        case .response(let response):
            respond(response, to: request, started: started)
        case .stream(let start):
            startStream(for: request, started: started, start: start)
        case .deferred(let operation):
            let id = nextDeferredID
            nextDeferredID += 1
            deferred[id] = Task { [weak self] in
                let response = await operation()
                guard let self else { return }
                self.deferred[id] = nil
                self.respond(response, to: request, started: started)
            }
        }
    }

    /// Counts the request's connection against the limit on its first request; false when it is over.
    private func admit(_ raw: OpaquePointer) -> Bool {
        guard let connection = evhttp_request_get_connection(raw) else { return true }
        if !connections.contains(connection) {
            // NB: a refused connection is closed after its 503; the close callback lets its socket go at once.
            setCloseCallback(on: connection)
            guard connections.count < configuration.maxConnections else {
                refusedConnections.insert(connection)
                return false
            }
            connections.insert(connection)
        }
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            headDeadlines?.requestArrived(on: bufferevent)
        }
        return true
    }

    private func setCloseCallback(on connection: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_connection_set_closecb(connection, { connection, context in
            guard let connection, let context else { return }
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            LoopActor.assumeIsolated { server.connectionClosed(connection) }
        }, context)
    }

    /// evhttp is closing a counted connection; a stream on it ends.
    private func connectionClosed(_ connection: OpaquePointer) {
        connections.remove(connection)
        refusedConnections.remove(connection)
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            headDeadlines?.connectionClosed(bufferevent)
        }
        streams[connection]?.clientClosed()
    }

    private func dispatch(_ request: HTTPRequest) throws -> HTTPHandlerResult {
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
            if bodyCount > configuration.maxBodySize {
                throw HTTPError.bodyTooLarge(limit: configuration.maxBodySize)
            }
            if bodyCount > 0 {
                let contentType = request.header("Content-Type") ?? ""
                if !Self.isJSON(contentType) { throw HTTPError.unsupportedMediaType(contentType) }
            }
            return try handler(request)
        }
    }

    private func respond(_ response: HTTPResponse, to request: HTTPRequest, started: ContinuousClock.Instant) {
        send(response, raw: request.raw, requestID: request.requestID, method: request.method)
        report(
            route: request.routePattern, method: request.method, status: response.status,
            requestID: request.requestID, started: started
        )
    }

    /// One structured access-log line (debug level: at info, logging every request would cost more than
    /// serving it) and the metrics record.
    private func report(
        route: String, method: HTTPMethod, status: Int, requestID: String, started: ContinuousClock.Instant
    ) {
        let duration = ContinuousClock.now - started
        if logger.logLevel <= .debug {
            logger.debug(
                "request",
                metadata: [
                    "request-id": "\(requestID)", "route": "\(route)", "method": "\(method.rawValue)",
                    "status": "\(status)", "duration": "\(duration)",
                ]
            )
        }
        onRequest?(HTTPRequestRecord(route: route, method: method, status: status, duration: duration))
    }

    private func send(_ response: HTTPResponse, raw: OpaquePointer, requestID: String, method: HTTPMethod) {
        let headers = evhttp_request_get_output_headers(raw)
        for header in response.headers {
            evhttp_add_header(headers, header.name, header.value)
        }
        evhttp_add_header(headers, "X-Request-ID", requestID)
        if method == .head || method == .trace, Self.hasBody(raw) {
            // NB: evhttp 2.1 never reads the body of a HEAD or TRACE request; the leftover bytes would be
            // parsed as the next request on this connection (request smuggling). Close it instead.
            evhttp_add_header(headers, "Connection", "close")
        }
        if !response.body.isEmpty {
            response.body.withUnsafeBytes { _ = evbuffer_add(scratchBuffer, $0.baseAddress, $0.count) }
        }
        let connection = evhttp_request_get_connection(raw)
        evhttp_send_reply(raw, Int32(response.status), Self.reason(response.status), scratchBuffer)
        // NB: evhttp keeps the body for HEAD/204 out of the wire but leaves it in our buffer: clear it.
        evbuffer_drain(scratchBuffer, evbuffer_get_length(scratchBuffer))
        awaitNextRequest(on: connection)
    }

    // MARK: Streams

    private func startStream(
        for request: HTTPRequest, started: ContinuousClock.Instant, start: @LoopActor (ServerSentEventStream) -> Void
    ) {
        guard let connection = evhttp_request_get_connection(request.raw) else { return }
        let headers = evhttp_request_get_output_headers(request.raw)
        evhttp_add_header(headers, "Content-Type", "text/event-stream")
        evhttp_add_header(headers, "Cache-Control", "no-cache")
        evhttp_add_header(headers, "X-Accel-Buffering", "no")
        let compressed = configuration.compressStreams && acceptsGzip(request.header("Accept-Encoding"))
        if compressed {
            evhttp_add_header(headers, "Content-Encoding", "gzip")
        }
        if configuration.compressStreams {
            evhttp_add_header(headers, "Vary", "Accept-Encoding")
        }
        evhttp_add_header(headers, "X-Request-ID", request.requestID)
        var timeout = timeval(configuration.streamTimeout)
        evhttp_connection_set_timeout_tv(connection, &timeout)
        let stream = ServerSentEventStream(
            request: request, connection: connection, server: self,
            maxPendingBytes: configuration.streamMaxPendingBytes, compressed: compressed
        )
        streams[connection] = stream
        evhttp_send_reply_start(request.raw, 200, "OK")
        report(
            route: request.routePattern, method: request.method, status: 200, requestID: request.requestID,
            started: started
        )
        start(stream)
    }

    func streamEnded(_ stream: ServerSentEventStream) {
        if streams[stream.connection] === stream { streams[stream.connection] = nil }
        awaitNextRequest(on: stream.connection)
    }

    /// The connection (if still open and counted) waits for its next request head, with a deadline.
    private func awaitNextRequest(on connection: OpaquePointer?) {
        guard let connection, connections.contains(connection),
            let bufferevent = evhttp_connection_get_bufferevent(connection)
        else { return }
        headDeadlines?.awaitNextRequest(on: bufferevent)
    }

    private func sendKeepalives() {
        let comment = keepaliveComment
        for stream in streams.values {
            stream.send(comment)
        }
    }

    // MARK: Helpers

    /// Whether the request announced a body (`Content-Length` other than 0, or any `Transfer-Encoding`).
    private static func hasBody(_ raw: OpaquePointer) -> Bool {
        guard let input = evhttp_request_get_input_headers(raw) else { return false }
        if evhttp_find_header(input, "Transfer-Encoding") != nil { return true }
        guard let length = evhttp_find_header(input, "Content-Length") else { return false }
        return String(cString: length) != "0"
    }

    /// The origin form (`/path?query`) of a request target; an absolute-form target (`http://host/path`,
    /// which RFC 9112 §3.2.2 says a server must accept) loses its scheme and authority.
    static func originForm(_ target: String) -> String {
        guard target.utf8.first != UInt8(ascii: "/") else { return target }
        let utf8 = target.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return target }
        let scheme = String(decoding: utf8[..<colon], as: UTF8.self).lowercased()
        let rest = utf8[utf8.index(after: colon)...]
        guard scheme == "http" || scheme == "https", rest.starts(with: "//".utf8) else { return target }
        let authority = rest.dropFirst(2)
        guard let end = authority.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") }) else {
            return "/"
        }
        let tail = String(decoding: utf8[end...], as: UTF8.self)
        return utf8[end] == UInt8(ascii: "/") ? tail : "/" + tail
    }

    /// Whether the request carries several `Content-Length` headers that differ.
    private static func hasConflictingContentLengths(_ raw: OpaquePointer) -> Bool {
        guard let input = evhttp_request_get_input_headers(raw), let first = evhttp_find_header(input, "Content-Length")
        else { return false }
        var entry = input.pointee.tqh_first
        while let header = entry {
            if strcasecmp(header.pointee.key, "Content-Length") == 0, strcmp(header.pointee.value, first) != 0 {
                return true
            }
            entry = header.pointee.next.tqe_next
        }
        return false
    }

    private func makeRequestID(_ raw: OpaquePointer) -> String {
        if let headers = evhttp_request_get_input_headers(raw), let given = evhttp_find_header(headers, "X-Request-ID") {
            let value = String(cString: given)
            if (1...64).contains(value.utf8.count), value.utf8.allSatisfy(Self.isRequestIDByte) { return value }
        }
        requestCounter += 1
        return "\(requestIDPrefix)-\(requestCounter)"
    }

    private static func isRequestIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    static func isJSON(_ contentType: String) -> Bool {
        let trimmed = (contentType.httpFieldParts(separatedBy: ";", maxSplits: 1).first ?? "").lowercased()
        return trimmed == "application/json" || (trimmed.hasPrefix("application/") && trimmed.hasSuffix("+json"))
    }

    private static func localPort(of fd: Int32) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
