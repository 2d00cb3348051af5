import EventLoop
import FakeUpstream
import JSON
import Logging
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// One real `vmhost` process on a Redis journal, with its upstreams at a fake upstream of the test process
/// (so every node sees the same upstream, whose latency the test controls, and image URLs outlive a node).
struct VMHostNode {
    let process: SpawnedProcess
    let port: Int
    let name: String

    /// Starts `vmhost --redis-url … --node-id name` against `upstream`.
    /// - Parameter redisTimeoutMilliseconds: the journal's command timeout (a config file setting).
    static func start(
        _ name: String, redis: RedisServerProcess, upstream: String, redisTimeoutMilliseconds: Int? = nil
    ) async throws -> VMHostNode {
        var arguments = [
            "--redis-url", redis.url(), "--node-id", name, "--flickr-url", upstream + "/services/rest/",
            "--products-url", upstream,
        ]
        var config: String?
        if let redisTimeoutMilliseconds {
            let path = "/tmp/vmhost-test-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
            let text = #"{"redisTimeoutMilliseconds": \#(redisTimeoutMilliseconds)}"#
            guard let file = fopen(path, "w") else { throw TestClientError("cannot write \(path)") }
            fputs(text, file)
            fclose(file)
            arguments += ["--config", path]
            config = path
        }
        defer { if let config { unlink(config) } }
        let (process, port) = try await ExecutableTests.startVMHost(arguments)
        return VMHostNode(process: process, port: port, name: name)
    }

    var client: TestHTTPClient { TestHTTPClient(port: port) }

    /// `/healthz`'s `journal` field.
    func journalHealth() async throws -> String? {
        try await client.get("/healthz").json?["journal"]?.stringValue
    }

    /// Waits until `/healthz` reports the journal as `status`.
    func journalBecomes(_ status: String, timeout: Duration = .seconds(15)) async throws -> Bool {
        try await eventually(timeout: timeout) { try await journalHealth() == status }
    }

    /// A counter or gauge of `/metrics` (0 when absent).
    func metric(_ name: String) async throws -> Double {
        let text = try await client.get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1)) ?? 0
        }
        return 0
    }

    /// Kills the process with `signal` and waits for it to exit; returns its exit status.
    @discardableResult
    func stop(_ signal: Int32) async throws -> Int32 {
        process.signal(signal)
        return try await process.exit().value.0
    }

    /// Creates a session and returns its id.
    func createSession() async throws -> String {
        let response = try await client.post("/v1/sessions")
        guard response.status == 201, let id = response.json?["id"]?.stringValue else {
            throw TestClientError("session not created on \(name): \(response.status) \(response.text)")
        }
        return id
    }
}

/// The fake upstream the nodes of a test share, run by the test process.
@LoopActor
final class SharedUpstream {
    let fake: FakeUpstream
    let baseURL: String

    init() throws {
        var logger = Logger(label: "shared-upstream")
        logger.logLevel = .error
        fake = FakeUpstream(logger: logger)
        baseURL = try fake.start()
    }

    /// Sets the delay before every answer.
    func setLatency(_ latency: Duration) {
        fake.behavior = FakeUpstreamBehavior(latency: latency)
    }

    func shutdown() async {
        await fake.shutdown()
    }
}
