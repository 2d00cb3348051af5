import Auth
import EventLoop
import FakeUpstream
import HTTPServer
import Logging
import VMHost
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// How a test reaches the application (HummingbirdTesting's `.router` and `.live`).
enum TestTransport {
    /// Through the server's request handling in process, with no socket: for what routes and handlers do
    /// (statuses, error bodies, headers, command validation, session lifecycle).
    case router
    /// Through a real loopback socket: for what only a connection has (framing, limits on connections, streams'
    /// back-pressure and encoding, timeouts).
    case live
}

/// A real vmhost with its embedded fake upstream, as `main` builds it: on a loopback port (``TestTransport/live``)
/// or answering in process (``TestTransport/router``).
struct TestApplication {
    let application: VMHostApplication
    /// The bound port; 0 in router mode.
    let port: Int
    /// The in-process server in router mode; nil in live mode.
    let inProcess: InProcessServer?

    /// Starts an application; `time`, when given, is the clock of session activity and expiry, `clock` the
    /// clock of view-model timers (the search debounce), and `wallClock` the time tokens are judged by; `log`,
    /// when given, receives every line the application logs at its configured level.
    static func start(
        via transport: TestTransport = .live, _ configure: (inout VMHostConfiguration) -> Void = { _ in },
        time: SessionTime? = nil, clock: TestClock? = nil, wallClock: (@Sendable () -> Double)? = nil,
        log: CapturedLog? = nil
    ) async throws -> TestApplication {
        var configuration = VMHostConfiguration()
        configuration.port = 0
        configuration.logLevel = .warning
        configure(&configuration)
        let settings = configuration
        return try await Self.make(
            transport, settings, time: time, clock: clock, wallClock: wallClock, log: log)
    }

    @LoopActor
    private static func make(
        _ transport: TestTransport, _ settings: VMHostConfiguration, time: SessionTime?, clock: TestClock?,
        wallClock: (@Sendable () -> Double)?, log: CapturedLog?
    ) throws -> TestApplication {
        var logger = log?.logger(level: settings.logLevel) ?? Logger(label: "vmhost-test")
        logger.logLevel = settings.logLevel
        let now: @LoopActor () -> ContinuousClock.Instant =
            if let time { { time.now } } else { { ContinuousClock.now } }
        let application = VMHostApplication(
            configuration: settings, logger: logger, now: now, clock: clock ?? LoopClock(),
            wallClock: wallClock ?? WallClock.now)
        // NB: VMHOST_ROUTER_TESTS_LIVE=1 runs the router-mode tests on a socket too: the same assertions, to check
        // them against the wire and to time both modes.
        let forcedLive = getenv("VMHOST_ROUTER_TESTS_LIVE").map { String(cString: $0) == "1" } ?? false
        switch forcedLive ? .live : transport {
        case .live:
            let port = try application.start()
            return TestApplication(application: application, port: port, inProcess: nil)
        case .router:
            let server = try application.startInProcess()
            return TestApplication(application: application, port: 0, inProcess: server)
        }
    }

    func stop() async {
        await application.shutdown()
    }

    /// A client of the application: over a socket, or in process in router mode.
    var client: any HTTPTestClient {
        if let inProcess { return InProcessClient(server: inProcess) }
        return TestHTTPClient(port: port)
    }

    /// The server's own origin as a page of it names it (`Origin`), matching the `Host` the client sends.
    var origin: String { inProcess == nil ? "http://127.0.0.1:\(port)" : "http://127.0.0.1" }

    /// A socket client (live mode only), for what needs one of its own (keep-alive, blocking reads).
    var socketClient: TestHTTPClient { TestHTTPClient(port: port) }

    /// Changes the fake upstream's behaviour.
    @LoopActor
    func setUpstream(_ behavior: FakeUpstreamBehavior) {
        application.fakeUpstream?.behavior = behavior
    }

    /// Requests the fake upstream has served on `path`.
    @LoopActor
    func upstreamRequests(_ path: String) -> Int {
        application.fakeUpstream?.requestCount(path) ?? 0
    }

    /// Where the embedded fake upstream listens, and where it serves photo images.
    @LoopActor
    func fakeUpstreamURLs() -> (base: String, images: String) {
        (application.fakeUpstream?.baseURL ?? "", application.fakeUpstream?.imageBaseURL ?? "")
    }

    /// Connections the server counts against its limit.
    @LoopActor
    func openConnections() -> Int {
        application.openConnectionCount
    }

    /// Creates a session and returns its id.
    func createSession() async throws -> String {
        let response = try await client.post("/v1/sessions")
        guard response.status == 201, let id = response.json?["id"]?.stringValue else {
            throw TestClientError("session not created: \(response.status) \(response.text)")
        }
        return id
    }
}

/// Runs `body` against a fresh application (on a socket unless `transport` is `.router`) and always shuts it down
/// afterwards.
func withApp(
    via transport: TestTransport = .live, _ configure: (inout VMHostConfiguration) -> Void = { _ in },
    time: SessionTime? = nil, clock: TestClock? = nil, wallClock: (@Sendable () -> Double)? = nil,
    log: CapturedLog? = nil, _ body: (TestApplication) async throws -> Void
) async throws {
    let app = try await TestApplication.start(
        via: transport, configure, time: time, clock: clock, wallClock: wallClock, log: log)
    do {
        try await body(app)
    } catch {
        await app.stop()
        throw error
    }
    await app.stop()
}

extension TestApplication {
    /// Upstream transfers vmhost has in flight.
    @LoopActor
    func upstreamInFlight() -> Int {
        application.upstreamTransfersInFlight
    }
}

/// The time sessions see: real time plus what the test has skipped, so a test expires sessions by moving the
/// clock instead of waiting for idle timeouts.
@LoopActor
final class SessionTime {
    private var skipped = Duration.zero

    nonisolated init() {}

    /// Now, as the session store sees it.
    var now: ContinuousClock.Instant { ContinuousClock.now + skipped }

    /// Moves the clock forward by `duration`.
    func advance(by duration: Duration) {
        skipped += duration
    }
}
