import Auth
import EventLoop
import FakeUpstream
import HTTPClient
import HTTPServer
import Journal
import Logging
import Redis
import Services
import Sessions
import Upstreams
import ViewModels

#if canImport(Glibc)
import Glibc
#endif

/// The whole server: HTTP API, sessions, upstream clients and (when no upstream URL is given) the embedded
/// fake upstream. `main` and the tests build it the same way.
@LoopActor
public final class VMHostApplication {
    /// The configuration in effect.
    public let configuration: VMHostConfiguration
    /// The session store.
    public let sessions: SessionStore
    /// The embedded fake upstream, when one was started.
    public private(set) var fakeUpstream: FakeUpstream?
    /// The bound port (after ``start()``).
    public var port: Int { server?.port ?? 0 }
    /// The port serving `/metrics` alone with `--metrics-port` (after ``start()``); nil when metrics are on ``port``.
    public var metricsPort: Int? { metricsServer?.port }
    /// Connections counted against the connection limit.
    public var openConnectionCount: Int { server?.openConnectionCount ?? 0 }
    /// This node's id (`X-VMHost-Node`): `--node-id`, or `host:port` once bound.
    public private(set) var nodeID = ""
    /// The Redis journal, when `--redis-url` is set.
    public private(set) var journal: RedisJournal?
    /// Upstream transfers in flight (queued or running).
    public var upstreamTransfersInFlight: Int { client.activeTransfers }

    private let logger: Logger
    private let metrics = VMHostMetrics()
    private let client: HTTPClient
    private var server: HTTPServer?
    /// The listener of `/metrics` with `--metrics-port` (same loop, same host; for the operator's scraper).
    private var metricsServer: HTTPServer?
    private let upstreams: UpstreamFactory
    /// Set when ``shutdown()`` begins: session routes and `/healthz` answer 503 from then on.
    private var isDraining = false
    /// The time tokens are judged by (seconds since 1970).
    private let wallClock: @Sendable () -> Double
    /// Token checks, once ``start()`` has loaded the keys; nil without authentication.
    private var authentication: RequestAuthentication?

    /// Builds the application; nothing listens until ``start()``.
    /// - Parameters:
    ///   - now: the clock of session activity and expiry (injected by tests, which move it instead of waiting).
    ///   - clock: the clock of view-model timers such as the search debounce (a test clock in tests).
    ///   - wallClock: the time tokens' `exp` and `nbf` are judged by, in seconds since 1970 (tests move it).
    public init(
        configuration: VMHostConfiguration, logger: Logger,
        now: @escaping @LoopActor () -> ContinuousClock.Instant = { ContinuousClock.now },
        clock: any Clock<Duration> = LoopClock(), wallClock: @escaping @Sendable () -> Double = WallClock.now
    ) {
        self.wallClock = wallClock
        self.configuration = configuration
        self.logger = logger
        client = HTTPClient(
            configuration: HTTPClientConfiguration(
                connectTimeout: configuration.upstreamConnectTimeout,
                requestTimeout: configuration.upstreamTimeout,
                maxConnectionsPerHost: configuration.upstreamMaxConnectionsPerHost,
                maxResponseBytes: configuration.upstreamMaxResponseBytes
            )
        )
        let upstreams = UpstreamFactory(client: client, configuration: configuration, metrics: metrics)
        self.upstreams = upstreams
        let idleTimeout = configuration.sessionIdleTimeout
        var store = SessionStoreConfiguration(
            idleTimeout: idleTimeout, maxSessions: configuration.maxSessions,
            sweepInterval: min(.seconds(5), idleTimeout / 4), replay: configuration.replay
        )
        if configuration.redisURL != nil, configuration.hibernateAfter > .zero {
            store.hibernateAfter = configuration.hibernateAfter
            // NB: a sweep at least every quarter of the delay, so a session hibernates within 1.25× of it.
            store.sweepInterval = max(.milliseconds(250), min(store.sweepInterval, configuration.hibernateAfter / 4))
        }
        store.idempotencyBytes = configuration.idempotencyBytesPerSession
        store.upstreamCallsPerMinute = configuration.upstreamCallsPerMinute
        sessions = SessionStore(
            configuration: store,
            viewModels: Self.viewModels(upstreams, clock: clock), now: now
        )
    }

    /// The view models every session hosts, in the order of the session resource and of resume ids: one
    /// registration line per screen.
    static func viewModels(_ upstreams: UpstreamFactory, clock: any Clock<Duration>) -> [ViewModelRegistration] {
        [
            ViewModelRegistration(SearchViewModel.self) {
                SearchViewModel(service: upstreams.makeFlickrService(), clock: clock)
            },
            ViewModelRegistration(ProductListViewModel.self) {
                ProductListViewModel(service: upstreams.makeProductService())
            },
            ViewModelRegistration(PhotoViewModel.self) { PhotoViewModel(service: upstreams.makeFlickrService()) },
        ]
    }

    /// Starts the fake upstream if needed, then the HTTP server.
    /// - Returns: the bound port.
    @discardableResult
    public func start() throws(VMHostStartError) -> Int {
        do {
            authentication = try Self.loadAuthentication(configuration, wallClock: wallClock)
        } catch {
            throw .authentication(error.description)
        }
        do {
            return try startServing()
        } catch {
            throw .server(error)
        }
    }

    /// The token verifier of the configuration's key file, issuer and audience; nil when no key file is set.
    /// - Throws: ``KeyError`` naming the file and what is wrong with it.
    static func loadAuthentication(
        _ configuration: VMHostConfiguration, wallClock: @escaping @Sendable () -> Double
    ) throws(KeyError) -> RequestAuthentication? {
        let keys: TokenKeys
        if let path = configuration.authHS256SecretFile {
            guard let bytes = FileBytes.read(path) else { throw KeyError(description: "cannot read \(path)") }
            do {
                keys = try TokenKeys.hs256(secretFile: bytes)
            } catch {
                throw KeyError(description: "\(path): \(error.description)")
            }
        } else if let path = configuration.authJWKSFile {
            guard let bytes = FileBytes.read(path) else { throw KeyError(description: "cannot read \(path)") }
            do {
                keys = try TokenKeys.jwks(bytes)
            } catch {
                throw KeyError(description: "\(path): \(error.description)")
            }
        } else {
            return nil
        }
        // NB: VMHostConfiguration.load refuses a key file without both; a configuration built in code may lack them.
        guard let issuer = configuration.authIssuer, let audience = configuration.authAudience else {
            throw KeyError(description: "authentication needs authIssuer and authAudience")
        }
        return RequestAuthentication(
            verifier: TokenVerifier(keys: keys, issuer: issuer, audience: audience, now: wallClock),
            maxSessionsPerSubject: configuration.maxSessionsPerSubject
        )
    }

    private func startServing() throws(HTTPServerError) -> Int {
        try startFakeUpstream()
        let server = HTTPServer(
            configuration: serverConfiguration(port: configuration.port), router: makeRouter(), logger: logger)
        let metrics = self.metrics
        server.onRequest = { metrics.record($0) }
        let port = try server.start()
        self.server = server
        nodeID = configuration.nodeID ?? "\(configuration.host):\(port)"
        server.commonHeaders = commonHeaders
        server.defaultCacheControl = Self.defaultCacheControl
        try startMetricsServer()
        startSessions()
        logger.info(
            "vmhost listening",
            metadata: ["address": "\(configuration.host):\(port)", "products": "\(upstreams.productsBaseURL)"]
        )
        logAuthentication()
        return port
    }

    /// Starts everything ``start()`` does but the listeners, and returns the server's request handling without
    /// a socket: router-mode tests drive the routes through it (`VMHostTesting`'s `InProcessClient`). The node
    /// id is `--node-id`, or `host:0` (no port is bound). ``shutdown()`` stops it like a started application.
    package func startInProcess() throws(VMHostStartError) -> InProcessServer {
        do {
            authentication = try Self.loadAuthentication(configuration, wallClock: wallClock)
        } catch {
            throw .authentication(error.description)
        }
        do {
            try startFakeUpstream()
        } catch {
            throw .server(error)
        }
        nodeID = configuration.nodeID ?? "\(configuration.host):0"
        startSessions()
        return makeInProcessServer()
    }

    /// A server answering in process with this application's routes, limits, error format and headers, as its
    /// ``start()`` serves them on a socket. On a started application, it serves the same sessions: the tests that
    /// check that an answer in process is the one on the socket send the same request both ways.
    package func makeInProcessServer() -> InProcessServer {
        let server = InProcessServer(configuration: serverConfiguration(port: 0), router: makeRouter())
        let metrics = self.metrics
        server.onRequest = { metrics.record($0) }
        server.commonHeaders = commonHeaders
        server.defaultCacheControl = Self.defaultCacheControl
        return server
    }

    /// The embedded fake upstream, when an upstream has no URL, and the upstream URLs.
    private func startFakeUpstream() throws(HTTPServerError) {
        if configuration.needsFakeUpstream {
            let fake = FakeUpstream(
                behavior: FakeUpstreamBehavior(latency: configuration.fakeUpstreamLatency),
                logger: logger
            )
            let url = try fake.start()
            fakeUpstream = fake
            logger.info("embedded fake upstream started", metadata: ["url": "\(url)"])
        }
        upstreams.configureURLs(
            fakeBaseURL: fakeUpstream?.baseURL ?? "", fakeImageBaseURL: fakeUpstream?.imageBaseURL ?? ""
        )
    }

    /// The API server's limits, error format and origin checks.
    private func serverConfiguration(port: Int) -> HTTPServerConfiguration {
        HTTPServerConfiguration(
            host: configuration.host, port: port, maxBodySize: configuration.maxBodyBytes,
            maxHeadersSize: configuration.maxHeaderBytes, idleTimeout: configuration.httpIdleTimeout,
            keepaliveInterval: configuration.keepaliveInterval,
            streamMaxPendingBytes: configuration.streamMaxPendingBytes,
            maxConnections: configuration.maxConnections, errorResponder: .apiJSON, checksOrigin: true,
            allowedOrigins: configuration.allowedOrigins
        )
    }

    /// NB: nosniff on every answer (the web client's too); `no-store` (``defaultCacheControl``) on those that set
    /// no caching of their own: API answers carry session state, never to be kept by a cache (API.md, "What never
    /// leaves the server").
    private var commonHeaders: [HTTPHeader] {
        [HTTPHeader("X-VMHost-Node", nodeID), HTTPHeader("X-Content-Type-Options", "nosniff")]
    }

    private static let defaultCacheControl = "no-store"

    /// The sessions' node tag, the journal and session expiry, once the node id is known.
    private func startSessions() {
        // NB: ids name their node only when its id fits in a URL segment (`n1`, not the default `host:port`).
        sessions.nodeTag = nodeID
        startJournal()
        sessions.startExpiry()
    }

    private func logAuthentication() {
        if authentication == nil {
            logger.info(
                "authentication is off: sessions are bearer capabilities (anyone holding a session id can use it)")
        } else {
            logger.info(
                "authentication is on",
                metadata: [
                    "issuer": "\(configuration.authIssuer ?? "")", "audience": "\(configuration.authAudience ?? "")",
                ]
            )
        }
    }

    /// With `--metrics-port N`, a second listener on the same loop and host that serves `GET /metrics` and
    /// nothing else; the API's port then answers `404` for `/metrics` (API.md, "Operations").
    private func startMetricsServer() throws(HTTPServerError) {
        guard let metricsPort = configuration.metricsPort else { return }
        var router = Router()
        makeRoutes().registerMetrics(on: &router)
        // NB: a scraper needs few connections; its own limit keeps it apart from the API's.
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: configuration.host, port: metricsPort, maxBodySize: 1024,
                maxHeadersSize: configuration.maxHeaderBytes, idleTimeout: configuration.httpIdleTimeout,
                maxConnections: 16, errorResponder: .apiJSON
            ),
            router: router, logger: logger
        )
        let port = try server.start()
        metricsServer = server
        logger.info("metrics listening", metadata: ["address": "\(configuration.host):\(port)"])
    }

    /// Connects the Redis journal (it connects, and reconnects, in the background: requests are served from
    /// memory meanwhile).
    private func startJournal() {
        guard let url = configuration.redisURL else { return }
        var redis: RedisConfiguration
        do {
            redis = try RedisConfiguration(url: url)
        } catch {
            // NB: VMHostConfiguration validated the URL already; this cannot happen for a loaded configuration.
            logger.error("invalid Redis URL: sessions stay in memory", metadata: ["error": "\(error)"])
            return
        }
        redis.commandTimeout = configuration.redisTimeout
        redis.connectTimeout = configuration.redisTimeout
        let journal = RedisJournal(
            client: RedisClient(configuration: redis), store: sessions, node: nodeID,
            idleTimeout: configuration.sessionIdleTimeout, logger: logger,
            keyBytesCapacity: configuration.idempotencyBytesPerSession
        )
        let metrics = self.metrics
        journal.onWriteLatency = { metrics.journalWrite($0) }
        sessions.onWake = { _, duration in metrics.sessionWoken(duration) }
        sessions.onRestoreFailure = { [logger] id, error in
            logger.error(
                "session in the journal cannot be restored: treated as missing",
                metadata: [
                    "session": "\(SessionID.digest(id))", "error": "\(error)",
                ])
        }
        journal.start()
        self.journal = journal
        logger.info(
            "journal configured",
            metadata: ["redis": "\(redis.host):\(redis.port)/\(redis.database)", "owner": "\(journal.owner)"])
    }

    /// The route table of the HTTP API with its handlers, as ``start()`` serves it. Building it starts
    /// nothing, so the fuzz target (`Sources/VMHostFuzz`) matches paths against exactly the server's routes.
    package func makeRouter() -> Router {
        var router = Router()
        makeRoutes().register(on: &router)
        return router
    }

    private func makeRoutes() -> Routes {
        let routes = Routes(
            sessions: sessions, metrics: metrics,
            idleTimeoutSeconds: Int(configuration.sessionIdleTimeout.components.seconds),
            serverLoad: { [weak self] in
                (self?.server?.openStreamCount ?? 0, self?.server?.openConnectionCount ?? 0)
            },
            journalStatus: { [weak self] in
                guard let self, self.configuration.redisURL != nil else { return nil }
                guard let journal = self.journal else { return .unavailable }
                return JournalStatus(journal: journal)
            },
            isDraining: { [weak self] in self?.isDraining ?? true },
            servesMetrics: configuration.metricsPort == nil,
            fakeImageOrigin: upstreams.flickrImageHost == .live
                ? nil : WebClient.origin(of: upstreams.flickrImageHost.baseURL),
            authentication: authentication
        )
        routes.maxStreamsPerSession = configuration.maxStreamsPerSession
        return routes
    }

    /// Graceful shutdown: stop accepting, end every stream, cancel upstream work, flush, close.
    ///
    /// With the journal, every session is written and released first, so another node (or this one after
    /// a restart) continues it with no gap.
    public func shutdown() async {
        isDraining = true
        server?.startDraining()
        if let journal {
            await journal.releaseAll()
        }
        sessions.closeAll()
        journal?.shutdown()
        await server?.shutdown()
        server = nil
        await metricsServer?.shutdown()
        metricsServer = nil
        await fakeUpstream?.shutdown()
        logger.info("vmhost stopped")
    }
}

/// Builds the upstream services of new sessions; the base URLs are known once the fake upstream runs.
@LoopActor
final class UpstreamFactory {
    var productsBaseURL = ""
    var flickrEndpoint = ""
    var flickrAPIKey: String?
    /// Flickr's image host, or the fake's when the fake answers for Flickr.
    var flickrImageHost = FlickrImageHost.live
    /// One fetcher for every session: identical requests in flight are shared across sessions.
    let fetcher: SharedFetcher
    private let configuration: VMHostConfiguration
    private let recorder: UpstreamRecorder

    init(client: HTTPClient, configuration: VMHostConfiguration, metrics: VMHostMetrics) {
        fetcher = SharedFetcher(client: client, ttl: configuration.upstreamCacheTTL)
        fetcher.onOutcome = { metrics.upstreamCache($0.rawValue) }
        self.configuration = configuration
        self.recorder = metrics.upstreamRecorder
    }

    /// Sets the upstream URLs from the configuration, using the fake upstream at `fakeBaseURL` for any upstream
    /// without a URL (the real Flickr API when only a key is given), and its images at `fakeImageBaseURL` when it
    /// answers for Flickr.
    func configureURLs(fakeBaseURL: String, fakeImageBaseURL: String) {
        productsBaseURL =
            configuration.productsURL
            ?? (configuration.productsFormat == .dummyjson ? fakeBaseURL + "/dummyjson" : fakeBaseURL)
        if let url = configuration.flickrURL {
            flickrEndpoint = url
        } else if configuration.flickrAPIKey != nil {
            flickrEndpoint = "https://api.flickr.com/services/rest/"
        } else {
            flickrEndpoint = fakeBaseURL + "/services/rest/"
            flickrImageHost = FlickrImageHost(baseURL: fakeImageBaseURL)
        }
        flickrAPIKey = configuration.flickrAPIKey
    }

    func makeProductService() -> any ProductService {
        switch configuration.productsFormat {
        case .envelope:
            EnvelopeProductService(
                fetcher: fetcher, baseURL: productsBaseURL, pageSize: configuration.productsPageSize, recorder: recorder
            )
        case .dummyjson:
            DummyJSONProductService(
                fetcher: fetcher, baseURL: productsBaseURL, pageSize: configuration.productsPageSize, recorder: recorder
            )
        }
    }

    func makeFlickrService() -> any FlickrService {
        FlickrAPIService(
            fetcher: fetcher, endpoint: flickrEndpoint, apiKey: flickrAPIKey, imageHost: flickrImageHost,
            recorder: recorder
        )
    }
}

/// Why the application could not start.
public enum VMHostStartError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP server could not start.
    case server(HTTPServerError)
    /// The authentication key file cannot be used (the message names the file and the problem).
    case authentication(String)

    public var description: String {
        switch self {
        case .server(let error): error.description
        case .authentication(let problem): "authentication: \(problem)"
        }
    }
}

/// Reads small files (key files) whole.
enum FileBytes {
    /// The file's bytes, or nil when it cannot be read; at most 1 MiB (a key file is far smaller).
    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= 1 << 20 {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes.count <= 1 << 20 ? bytes : nil
    }
}
