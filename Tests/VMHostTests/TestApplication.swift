import Auth
import EventLoop
import FakeUpstream
import Logging
import VMHost
import VMHostTesting

/// A real vmhost on a loopback port with its embedded fake upstream, as `main` builds it.
struct TestApplication {
    let application: VMHostApplication
    let port: Int

    /// Starts an application; `clock` (a clock that moves only when the test advances it), when given, is the
    /// application's one clock, and `wallClock` the time tokens are judged by; `log`,
    /// when given, receives every line the application logs at its configured level.
    static func start(
        _ configure: (inout VMHostConfiguration) -> Void = { _ in }, clock: TestClock? = nil,
        wallClock: (@Sendable () -> Double)? = nil, log: CapturedLog? = nil
    ) async throws -> TestApplication {
        var configuration = VMHostConfiguration()
        configuration.port = 0
        configuration.logLevel = .warning
        configure(&configuration)
        let settings = configuration
        return try await Self.make(settings, clock: clock, wallClock: wallClock, log: log)
    }

    @LoopActor
    private static func make(
        _ settings: VMHostConfiguration, clock: TestClock?,
        wallClock: (@Sendable () -> Double)?, log: CapturedLog?
    ) throws -> TestApplication {
        var logger = log?.logger(level: settings.logLevel) ?? Logger(label: "vmhost-test")
        logger.logLevel = settings.logLevel
        let application = VMHostApplication(
            configuration: settings, logger: logger, clock: clock?.clock ?? LoopClock(),
            wallClock: wallClock ?? WallClock.now)
        let port = try application.start()
        return TestApplication(application: application, port: port)
    }

    func stop() async {
        await application.shutdown()
    }

    var client: TestHTTPClient { TestHTTPClient(port: port) }

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

/// Runs `body` against a fresh application and always shuts it down afterwards.
func withApp(
    _ configure: (inout VMHostConfiguration) -> Void = { _ in }, clock: TestClock? = nil,
    wallClock: (@Sendable () -> Double)? = nil, log: CapturedLog? = nil,
    _ body: (TestApplication) async throws -> Void
) async throws {
    let app = try await TestApplication.start(configure, clock: clock, wallClock: wallClock, log: log)
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

    /// Connections vmhost has accepted and not yet let go of.
    @LoopActor
    func openConnectionCount() -> Int {
        application.openConnectionCount
    }
}
