import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `vmhost` binary, as an operator would.
@Suite("The vmhost executable")
struct ExecutableTests {
    /// `.build/debug/vmhost` next to this package (built by `swift build --build-tests`).
    static var binary: String {
        var path = Substring(#filePath)
        for _ in 0..<3 {  // …/Tests/VMHostTests/ExecutableTests.swift → the package root
            if let slash = path.lastIndex(of: "/") { path = path[..<slash] }
        }
        return path + "/.build/debug/vmhost"
    }

    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func sigtermEndsStreamsAndExitsZeroWithinFiveSeconds() async throws {
        let port = try TestListener.closedPort()
        let process = try SpawnedProcess(Self.binary, ["--port", "\(port)", "--log-level", "warning"])
        var ready = false
        for _ in 0..<100 where !ready {
            ready = (try? TestSocket(port: port)) != nil
            if !ready { try await Task.sleep(for: .milliseconds(50)) }
        }
        try #require(ready, "vmhost did not start listening")
        let client = TestHTTPClient(port: port)
        let id = try #require(try await client.post("/v1/sessions").json?["id"]?.stringValue)
        let stream = try await TestEventStream(port: port, path: "/v1/sessions/\(id)/products/events")
        #expect(try await stream.next()?.event == "snapshot")

        let started = ContinuousClock.now
        process.signal(SIGTERM)
        #expect(try await stream.next() == nil, "the stream ended with its final chunk")
        let status = try await offPool { process.waitForExit() }
        #expect(status == 0)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func badConfigurationIsRefusedWithAMessage() async throws {
        let process = try SpawnedProcess(Self.binary, ["--port", "70000"])
        let status = try await offPool { process.waitForExit() }
        #expect(status != 0)
    }
}

/// A child process started with posix_spawn.
final class SpawnedProcess: @unchecked Sendable {
    let pid: pid_t

    init(_ path: String, _ arguments: [String]) throws {
        var pid = pid_t()
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let result = posix_spawn(&pid, path, nil, nil, argv, environ)
        guard result == 0 else { throw TestClientError("posix_spawn failed: \(result)") }
        self.pid = pid
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the process; returns its exit status (or 128 + signal).
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
