import EventLoop
import FakeUpstream
import Foundation
import Logging
import VMHost
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// A real vmhost in this process on a loopback port, with its embedded fake upstream, as `main` builds it.
struct InProcessServer {
    let application: VMHostApplication
    let port: Int

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    @LoopActor
    static func start(_ configure: (inout VMHostConfiguration) -> Void = { _ in }) throws -> InProcessServer {
        var configuration = VMHostConfiguration()
        configuration.port = 0
        configuration.logLevel = .warning
        configure(&configuration)
        var logger = Logger(label: "vmhost-client-test")
        logger.logLevel = .warning
        let application = VMHostApplication(
            configuration: configuration, logger: logger, clock: LoopClock())
        return InProcessServer(application: application, port: try application.start())
    }

    func stop() async {
        await application.shutdown()
    }
}

/// A fake upstream run by the test process, shared by the vmhost processes of a test (so a restarted process
/// finds the same photos and products).
@LoopActor
final class TestUpstream {
    let fake: FakeUpstream
    let baseURL: String

    init() throws {
        var logger = Logger(label: "client-test-upstream")
        logger.logLevel = .error
        fake = FakeUpstream(logger: logger)
        baseURL = try fake.start()
    }

    func requests(_ path: String) -> Int { fake.requestCount(path) }

    func shutdown() async {
        await fake.shutdown()
    }
}

/// The built `vmhost` executable run as a process, on a Redis journal.
struct VMHostProcess {
    let process: SpawnedProcess
    let port: Int

    /// `.build/debug/vmhost` of this package (built by `swift build --build-tests`).
    static var binary: String {
        var path = Substring(#filePath)
        for _ in 0..<3 {
            if let slash = path.lastIndex(of: "/") { path = path[..<slash] }
        }
        return path + "/.build/debug/vmhost"
    }

    static var isBuilt: Bool { access(binary, X_OK) == 0 }

    /// Starts vmhost on `port` (0: one it picks, read from its log) with `redis` and `upstream`.
    static func start(
        port: Int = 0, nodeID: String = "n1", redis: RedisServerProcess, upstream: String
    ) async throws -> VMHostProcess {
        let log = "/tmp/vmhost-client-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(log) }
        let arguments = [
            "--port", "\(port)", "--log-level", "info", "--redis-url", redis.url(), "--node-id", nodeID,
            "--flickr-url", upstream + "/services/rest/", "--products-url", upstream,
        ]
        let process = try SpawnedProcess(binary, arguments, standardError: log)
        for _ in 0..<400 {
            let prefix = "address=127.0.0.1:"
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            if let word = words.first(where: { $0.hasPrefix(prefix) }), let port = Int(word.dropFirst(prefix.count)) {
                return VMHostProcess(process: process, port: port)
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        process.signal(SIGKILL)
        throw TestClientError("vmhost did not start listening")
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Sends `signal` and waits for the process to exit.
    func stop(_ signal: Int32) async throws {
        process.signal(signal)
        _ = try await process.exit().value
    }
}
