import CLibevent
import CLibeventShims
import EventLoop
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on libevent's evhttp, running on the loop.
///
/// It routes requests with a ``Router``, enforces body and header limits and content types, answers errors
/// with the ``HTTPErrorResponder`` of its configuration, serves Server-Sent Events streams, and drains and
/// shuts down gracefully. Its life is a ``State``: ``start()`` once, ``startDraining()``, then
/// ``shutdown(flushTimeout:)``.
///
/// One concern per file: binding (``Listener``), the connection limit (``ConnectionLimit``), request
/// deadlines (``ConnectionDeadlines``), request ids (``RequestIDGenerator``), the access log (``AccessLog``),
/// response writing (``ResponseWriter``), checks of the head (``RequestHead``), event streams
/// (`HTTPServer+EventStreams.swift`, ``ServerSentEventStream``) with gzip segments from EventStreams.
@LoopActor
public final class HTTPServer: LoopService {
    /// The limits, address and error format in effect.
    public let configuration: HTTPServerConfiguration
    /// Called after every request with its route, status and duration.
    public var onRequest: (@LoopActor (HTTPRequestRecord) -> Void)?
    /// The lifecycle state.
    public private(set) var state: State = .idle
    /// The bound port (after ``start()``).
    public private(set) var port: Int = 0

    /// The checks before routing, the route and its handler (shared with ``InProcessServer``).
    private let dispatcher: RequestDispatcher
    private let logger: Logger
    private let accessLog: AccessLog
    private var http: OpaquePointer?
    private var boundSocket: OpaquePointer?
    /// Every connection's deadlines (request heads, stalled output); swept from ``start()``.
    let deadlines: ConnectionDeadlines
    var requestIDs = RequestIDGenerator()
    let writer = ResponseWriter()
    /// Writes the replies and stream writes of a loop turn at its end.
    package let flusher = OutputFlusher()
    /// Open event streams by their connection (a connection carries at most one stream at a time).
    var streams: [OpaquePointer: ServerSentEventStream] = [:]
    var keepaliveTimer: LoopTimer?
    private var deferred: [Int: Task<Void, Never>] = [:]
    /// Requests answered by a ``HTTPHandlerResult/callback(_:)`` that has not called back yet.
    /// NB: a count, not a set of ids: a set hashed an id three times per command (every command waits for the
    /// journal this way).
    private var awaitingCallbacks = 0
    private var nextDeferredID = 0
    private var shutdownTask: Task<Void, Never>?
    /// Shutdown waiting for the last answer and the last byte (``settleShutdown()`` resumes it).
    private var quietWaiter: CheckedContinuation<Void, Never>?
    /// Whether shutdown waits (`quietWaiter` is set). NB: a flag read on every answer: testing the generic
    /// optional looked its type metadata up each time (~200 instructions a command).
    private var isWaitingForQuiet = false

    /// Creates an idle server.
    /// Headers added to every response and event stream from now on (``HTTPServerConfiguration/commonHeaders``
    /// at first); set after ``start()`` when they name the bound port.
    public var commonHeaders: [HTTPHeader] {
        get { writer.commonHeaders }
        set { writer.commonHeaders = newValue }
    }
    /// The `Cache-Control` of every response whose handler sets none (event streams keep their `no-cache`);
    /// nil adds none. Folded with ``commonHeaders``, so it costs a response no header of its own.
    public var defaultCacheControl: String? {
        get { writer.defaultCacheControl }
        set { writer.defaultCacheControl = newValue }
    }

    public init(configuration: HTTPServerConfiguration, router: Router, logger: Logger) {
        self.configuration = configuration
        dispatcher = RequestDispatcher(router: router, configuration: configuration)
        self.logger = logger
        accessLog = AccessLog(logger: logger)
        deadlines = ConnectionDeadlines(
            timeout: configuration.idleTimeout, streamTimeout: configuration.streamTimeout,
            limit: ConnectionLimit(maximum: configuration.maxConnections, reserve: configuration.reservedConnections),
            clock: configuration.clock)
        writer.commonHeaders = configuration.commonHeaders
    }

    isolated deinit {
        // NB: a stream that outlives the server (its owner holds it) is closed first: it reaches the server
        // only while open.
        for stream in streams.values { stream.serverWentAway() }
        // NB: evhttp_free runs the close callbacks, which must not reach a server being deinitialised.
        for record in deadlines.records.values {
            if let connection = record.connection { evhttp_connection_set_closecb(connection, nil, nil) }
            // NB: before evhttp_free closes the sockets (the close callbacks that would free it are gone).
            record.freeReadHold()
        }
        if let http {
            Self.unregister(http)
            evhttp_free(http)
        }
        deadlines.releaseAll()
    }

    /// Number of open event streams.
    public var openStreamCount: Int { streams.count }

    /// Number of open connections, counted from accept (against ``HTTPServerConfiguration/maxConnections``).
    public var openConnectionCount: Int { deadlines.limit.count }

    // MARK: Lifecycle

    /// Binds and starts accepting connections.
    /// - Returns: the bound port.
    /// - Throws: ``HTTPServerError/alreadyStarted`` or ``HTTPServerError/stopped`` unless the server is idle;
    ///   the address's error when it is invalid or cannot be bound (the server stays idle then).
    @discardableResult
    public func start() throws(HTTPServerError) -> Int {
        switch state {
        case .idle: break
        case .started, .draining, .stopping: throw .alreadyStarted
        case .stopped: throw .stopped
        }
        let listener = try Listener(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        guard let http = evhttp_new(EventLoop.shared.base) else {
            listener.close()
            throw .evhttpUnavailable
        }
        self.http = http
        evhttp_set_allowed_methods(http, HTTPMethod.evhttpAllMethods)
        // NB: evhttp refuses a body over the limit from its head's `Content-Length`, before reading it, and a
        // chunked one as soon as a chunk would pass it, so no connection holds more of a body than this. Its
        // answer (an HTML page) is the configured error instead (``register(_:)``, `evhttp_send_error`).
        evhttp_set_max_body_size(http, configuration.maxBodySize)
        evhttp_set_max_headers_size(http, configuration.maxHeadersSize)
        // NB: no evhttp timeouts: ``ConnectionDeadlines`` keeps them all (a libevent timer re-armed on every
        // write cost more than the rest of a stream delivery's event handling).
        // NB: no default `Content-Type` from evhttp: ``ResponseWriter`` adds `application/json` to a reply with a
        // body and none of its own, among the header lines it folds (evhttp would look for it by name).
        evhttp_set_default_content_type(http, nil)
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_bevcb(
            http,
            { base, context in
                guard let base, let context else { return nil }
                let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
                return LoopActor.assumeIsolated { server.deadlines.makeBufferEvent(base: base) }
            }, context)
        evhttp_set_gencb(http, serverHandleRequest, context)
        Self.register(http, self)
        if !LibeventOverrides.isActive {
            logger.warning(
                "libevent is not the release vmhost's overrides were written for: its own functions run (slower, and its own errors are HTML pages)",
                metadata: [
                    "libevent": "\(LibeventOverrides.libeventVersion)",
                    "written for": "\(LibeventOverrides.writtenFor)",
                ])
        }
        boundSocket = evhttp_bind_listener(http, listener.pointer)
        port = listener.port
        deadlines.start()
        startKeepalives()
        state = .started
        return port
    }

    /// Stops taking new work: the listening socket closes, connections waiting for a request close, and each
    /// request still arriving is answered with `Connection: close`. Deferred requests and open event streams
    /// go on until ``shutdown(flushTimeout:)``. Does nothing unless the server is started.
    public func startDraining() {
        guard state == .started else { return }
        state = .draining
        if let http, let boundSocket {
            evhttp_del_accept_socket(http, boundSocket)
            self.boundSocket = nil
        }
        deadlines.closeIdleConnections()
    }

    /// Graceful shutdown with a flush bound of one second (``shutdown(flushTimeout:)``).
    public func shutdown() async {
        await shutdown(flushTimeout: .seconds(1))
    }

    /// Graceful shutdown: drain, end every stream, cancel and answer deferred requests, let the loop flush
    /// output (bounded by `flushTimeout`), then free the server and its connections. Idempotent: a later call
    /// returns once the first has finished.
    public func shutdown(flushTimeout: Duration) async {
        if let shutdownTask { return await shutdownTask.value }
        guard state != .idle else {
            state = .stopped
            return
        }
        let task = Task { await self.stop(flushTimeout: flushTimeout) }
        shutdownTask = task
        await task.value
    }

    private func stop(flushTimeout: Duration) async {
        startDraining()
        state = .stopping
        stopKeepalives()
        for stream in Array(streams.values) {
            stream.end()
        }
        for task in deferred.values {
            task.cancel()
        }
        await untilQuiet(flushTimeout: flushTimeout)
        if let http {
            Self.unregister(http)
            evhttp_free(http)
            self.http = nil
        }
        deadlines.releaseAll()
        state = .stopped
    }

    /// Suspends until every deferred request and callback has answered and every connection's output has gone
    /// to its socket (evhttp_free then closes them), or `flushTimeout` has passed on the server's clock.
    ///
    /// NB: awaited, not polled: the end of each deferred request, each callback and each write to a socket
    /// calls ``settleShutdown()``, and one sleep on the clock bounds the wait.
    private func untilQuiet(flushTimeout: Duration) async {
        deadlines.watchOutput { [unowned self] in self.settleShutdown() }
        guard !isQuiet else { return }
        let clock = configuration.clock
        // NB: holds the server strongly (no weak reference: see the loop conventions in docs/architecture.md)
        // until it is cancelled, right after the wait.
        let bound = Task { @LoopActor in
            try? await clock.sleep(for: flushTimeout)
            self.endQuietWait()
        }
        await withCheckedContinuation {
            quietWaiter = $0
            isWaitingForQuiet = true
        }
        bound.cancel()
    }

    private var isQuiet: Bool {
        deferred.isEmpty && awaitingCallbacks == 0 && !deadlines.hasOutputWaiting
    }

    /// Resumes shutdown once nothing is left to answer or to write.
    private func settleShutdown() {
        guard isWaitingForQuiet, isQuiet else { return }
        endQuietWait()
    }

    private func endQuietWait() {
        guard let quietWaiter else { return }
        self.quietWaiter = nil
        isWaitingForQuiet = false
        quietWaiter.resume()
    }

    /// Whether responses close their connections (the server no longer takes new requests).
    var closesConnections: Bool { state != .started }

    // MARK: Request handling

    fileprivate func handle(_ raw: OpaquePointer) {
        let started = configuration.clock.now
        let requestID = requestIDs.id(for: raw)
        guard let method = HTTPMethod(evhttp: evhttp_request_get_command(raw)) else {
            let response = configuration.errorResponder.response(for: .methodNotImplemented)
            writer.send(response, to: raw, requestID: requestID, method: nil, closing: true)
            return
        }
        guard let uri = evhttp_request_get_uri(raw) else {
            let error = HTTPError.invalidRequest("no request target")
            refuse(raw, method: method, error: error, requestID: requestID, started: started, closing: true)
            return
        }
        guard case .admitted(let connection) = admit(raw) else {
            var error = HTTPError.overloaded("too many connections; try again later")
            error.headers.append(HTTPHeader("Retry-After", "1"))
            refuse(raw, method: method, error: error, requestID: requestID, started: started, closing: true)
            return
        }
        // NB: framing evhttp accepts though a proxy may read it otherwise (request smuggling): what is left on
        // the connection is never read as a request, as it closes after the 400 (RFC 9112 §6.3).
        if let problem = vmh_evhttp_request_framing_error(raw) {
            let error = HTTPError.invalidRequest(String(cString: problem))
            refuse(raw, method: method, error: error, requestID: requestID, started: started, closing: true)
            return
        }
        guard let components = URIComponents(requestTarget: uri) else {
            refuse(raw, method: method, error: .invalidPath, requestID: requestID, started: started, closing: false)
            return
        }
        let request = HTTPRequest(
            raw: raw, method: method, components: components, requestID: requestID, connection: connection,
            started: started)
        let result: HTTPHandlerResult
        do {
            result = try dispatcher.dispatch(request)
        } catch let error as HTTPError {
            respond(configuration.errorResponder.response(for: error), to: request)
            return
        } catch {
            logger.error("handler failed", metadata: ["request-id": "\(requestID)", "error": "\(error)"])
            respond(configuration.errorResponder.response(for: .internalError), to: request)
            return
        }
        deliver(result, to: request)
    }

    /// Sends what a handler produced: a response, a stream, or (later) what an asynchronous step produces.
    private func deliver(_ result: HTTPHandlerResult, to request: HTTPRequest) {
        switch result {
        case .response(let response):
            respond(response, to: request)
        case .stream(let start):
            startStream(for: request, start: start)
        case .deferred(let operation):
            runDeferred(for: request) {
                let response = await operation()
                self.respond(response, to: request)
            }
        case .callback(let start):
            awaitingCallbacks += 1
            request.awaitAnswer(from: self)
            // NB: the request's method: its context is the request (no allocation of its own).
            start(request.sendAnswer)
            // An answer in a later turn (a command waiting for the journal): the socket stays registered meanwhile.
            if request.isAwaitingAnswer { request.connection?.holdReading() }
        case .later(let operation):
            runDeferred(for: request) {
                let next: HTTPHandlerResult
                do {
                    next = try await operation()
                } catch {
                    let httpError = error as? HTTPError ?? .internalError
                    self.respond(
                        self.configuration.errorResponder.response(for: httpError), to: request)
                    return
                }
                self.deliver(next, to: request)
            }
        }
    }

    /// Runs `operation` as a deferred request: shutdown cancels it and waits for its answer.
    private func runDeferred(for request: HTTPRequest, _ operation: @escaping @LoopActor () async -> Void) {
        let id = nextDeferredID
        nextDeferredID += 1
        // NB: the task holds the server until it ends (shutdown waits for it anyway).
        deferred[id] = Task {
            await operation()
            self.deferred[id] = nil
            self.settleShutdown()
        }
    }

    /// Sends the answer a ``HTTPHandlerResult/callback(_:)`` gave (``HTTPRequest/sendAnswer(_:)``).
    func answered(_ response: HTTPResponse, to request: HTTPRequest) {
        awaitingCallbacks -= 1
        respond(response, to: request)
        // NB: after the answer is written: evhttp reads the socket again by then, so it stays registered.
        request.connection?.releaseReadHold()
        settleShutdown()
    }

    private func respond(_ response: HTTPResponse, to request: HTTPRequest) {
        // NB: an answer after shutdown (a deferred request or callback past the flush bound) has no request left
        // to go to: evhttp_free freed it.
        guard state != .stopped else { return }
        // NB: a request of this server always has its evhttp request.
        guard let raw = request.raw else { return }
        writer.send(
            response, to: raw, requestID: request.requestID, method: request.method, closing: closesConnections
        )
        if let connection = request.connection {
            deadlines.awaitNextRequest(on: connection)
            flusher.schedule(connection)
        }
        report(
            request.routePattern, request.method, response.status, requestID: request.requestID,
            started: request.started)
    }

    /// Answers a request refused before routing (route `unmatched`).
    private func refuse(
        _ raw: OpaquePointer, method: HTTPMethod, error: HTTPError, requestID: String, started: ContinuousClock.Instant,
        closing: Bool
    ) {
        let response = configuration.errorResponder.response(for: error)
        writer.send(response, to: raw, requestID: requestID, method: method, closing: closing || closesConnections)
        awaitNextRequest(on: evhttp_request_get_connection(raw))
        report("unmatched", method, response.status, requestID: requestID, started: started)
    }

    /// The access-log line and the metrics record of an answered request.
    func report(
        _ route: String, _ method: HTTPMethod, _ status: Int, requestID: String, started: ContinuousClock.Instant
    ) {
        let record = HTTPRequestRecord(
            route: route, method: method, status: status, duration: configuration.clock.now - started
        )
        accessLog.log(record, requestID: requestID)
        onRequest?(record)
    }

    /// The connection (if still open and counted) waits for its next request head, with a deadline.
    func awaitNextRequest(on connection: OpaquePointer?) {
        guard let connection, let bufferevent = evhttp_connection_get_bufferevent(connection),
            let record = deadlines.record(of: bufferevent), record.admission == .counted || record.admission == .reserve
        else { return }
        deadlines.awaitNextRequest(on: record)
    }
}

/// evhttp's request callback. NB: a function outside the loop's isolation rather than a closure written in
/// `start()`: a closure written in an isolated method is isolated itself, and one that C calls then checks
/// its executor on every call (`swift_task_isCurrentExecutor`, docs/performance.md, "Receipts");
/// `LoopActor.assumeIsolated` checks the thread instead (one compare).
private func serverHandleRequest(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    // NB: evhttp calls this on the loop thread with a request only the loop touches.
    nonisolated(unsafe) let request = request
    let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
    LoopActor.assumeIsolated {
        guard let request else { return }
        server.handle(request)
    }
}
