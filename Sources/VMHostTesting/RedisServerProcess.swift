import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway `redis-server` on a loopback port, for tests: no persistence (unless ``persistent``), killed when
/// released.
///
/// `@unchecked Sendable`: a test drives it from one task at a time.
public final class RedisServerProcess: @unchecked Sendable {
    /// The port the server listens on; it stays the same across ``restart()``.
    public let port: Int
    /// Whether every write is in an append-only file synced before the reply (`appendfsync always`), so the
    /// data survives a SIGKILL and a restart of the server.
    public let persistent: Bool
    private let directory: String
    /// The password of the default user (`--requirepass`), if the server asks for one.
    public let password: String?
    /// An ACL user with every right (`user NAME on >PASSWORD ~* &* +@all`), if any.
    public let user: (name: String, password: String)?
    /// The running server's process id (our child: reaped by ``signalAndWait(_:)``).
    private var child: pid_t?

    /// Picks a free loopback port (or takes `port`) without starting anything.
    /// - Parameters:
    ///   - persistent: keep the data across ``restart()`` (in a directory of its own, removed on release).
    ///   - password: require `AUTH password` of the default user.
    ///   - user: add an ACL user (clients of the tests authenticate as the default user).
    public init(
        port: Int? = nil, persistent: Bool = false, password: String? = nil,
        user: (name: String, password: String)? = nil
    ) throws {
        self.port = try port ?? TestListener.closedPort()
        self.persistent = persistent
        self.password = password
        self.user = user
        if persistent {
            directory = NSTemporaryDirectory() + "redis-\(getpid())-\(self.port)-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } else {
            directory = NSTemporaryDirectory()
        }
    }

    deinit {
        kill()
        if persistent { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// The server's process id while it runs.
    public var pid: Int32? { child }

    /// `redis://127.0.0.1:PORT/database`, with `:password@` when the server requires one.
    public func url(database: Int = 0) -> String {
        let credentials = password.map { ":\($0)@" } ?? ""
        return "redis://\(credentials)127.0.0.1:\(port)/\(database)"
    }

    /// `AUTH password` in RESP when the server requires a password (its reply, one line, comes first), else empty:
    /// what a test's own raw connection sends before its command.
    public var authPrefix: String {
        guard let password else { return "" }
        return "*2\r\n$4\r\nAUTH\r\n$\(password.utf8.count)\r\n\(password)\r\n"
    }

    /// How long a start waits for `PING` unless told. NB: 30 s: in CI's AddressSanitizer run, with the whole suite
    /// in parallel on two cores, a start once took longer than 10 s.
    public static let startTimeout: Duration = .seconds(30)

    /// Starts `redis-server` and waits until it answers `PING`.
    /// - Throws: ``TestClientError`` when it cannot start or does not answer within `timeout`.
    public func start(timeout: Duration = startTimeout) async throws {
        guard child == nil else { return }
        let arguments =
            [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--daemonize", "no", "--dir", directory,
            ] + (persistent ? ["--appendonly", "yes", "--appendfsync", "always"] : ["--appendonly", "no"])
            + (password.map { ["--requirepass", $0] } ?? [])
            // NB: each ACL rule its own argument (redis-server reads one `--user` text as the user's name).
            + (user.map { ["--user", $0.name, "on", ">" + $0.password, "~*", "&*", "+@all"] } ?? [])
        let deadline = ContinuousClock.now + timeout
        while true {
            // NB: a SpawnedProcess (posix_spawn, no inherited descriptors), not Foundation's `Process`: its
            // descriptor scan reads past a buffer under AddressSanitizer, and its `waitUntilExit()` hangs on a
            // pool thread.
            let pid = try SpawnedProcess(
                try Self.executable(), arguments, standardOutput: "/dev/null", standardError: "/dev/null"
            ).pid
            child = pid
            let port = port
            let auth = authPrefix
            let outcome = try await offPool { Self.waitForPong(port: port, auth: auth, pid: pid, until: deadline) }
            switch outcome {
            case .answered:
                return
            case .exited where ContinuousClock.now < deadline:
                // NB: the port was free when picked, but in a suite running in parallel another test's client
                // socket can take it as its local port before the server binds it; the server then exits at once.
                // That socket goes away soon: try the same port again (tests keep using `port`).
                child = nil
                try await Task.sleep(for: .milliseconds(50))
            case .exited:
                child = nil
                throw TestClientError("redis-server exited at start on port \(port) (is it taken?)")
            case .timedOut:
                kill()
                throw TestClientError("redis-server did not answer PING on port \(port)")
            }
        }
    }

    /// Stops the server with SIGTERM and waits for it to exit.
    public func stop() { signalAndWait(SIGTERM) }

    /// Kills the server with SIGKILL (no goodbye to its clients' sockets beyond the kernel's) and waits.
    public func kill() { signalAndWait(SIGKILL) }

    /// Suspends the server (SIGSTOP): it keeps its connections and answers nothing, as a hung server.
    public func suspend() {
        if let pid { Glibc.kill(pid, SIGSTOP) }
    }

    /// Resumes a suspended server (SIGCONT).
    public func resume() {
        if let pid { Glibc.kill(pid, SIGCONT) }
    }

    /// Kills the server and starts a fresh one on the same port (empty, unless ``persistent``).
    public func restart(timeout: Duration = startTimeout) async throws {
        kill()
        try await start(timeout: timeout)
    }

    private func signalAndWait(_ signal: Int32) {
        guard let pid = child else { return }
        child = nil
        Glibc.kill(pid, signal)
        let deadline = ContinuousClock.now + (signal == SIGKILL ? .seconds(10) : .milliseconds(200))
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result == -1 && errno == ECHILD) { return }
            usleep(2_000)
        }
        // NB: a SIGTERM can be ignored when the test process's disposition is inherited; a throwaway server
        // needs no graceful exit.
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    private static func executable() throws -> String {
        for candidate in ["/usr/bin/redis-server", "/usr/local/bin/redis-server"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        throw TestClientError("redis-server not found (apt-get install redis-server)")
    }

    /// How a start ended.
    private enum StartOutcome: Sendable {
        case answered, exited, timedOut
    }

    /// Polls with `PING` until `+PONG` comes back, the server (`pid`) exits, or `deadline` passes. Blocking: call
    /// it off the pool.
    private static func waitForPong(
        port: Int, auth: String, pid: pid_t, until deadline: ContinuousClock.Instant
    ) -> StartOutcome {
        while ContinuousClock.now < deadline {
            if let socket = try? TestSocket(port: port, timeoutSeconds: 1),
                (try? socket.write(auth + "PING\r\n")) != nil,
                auth.isEmpty || (try? socket.readLine()) == "+OK",
                (try? socket.readLine()) == "+PONG",
                // NB: and from this server, not another test's that took the port first.
                SpawnedProcess.process(pid, isListeningOnPort: port)
            {
                return .answered
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return .exited }
            usleep(20_000)
        }
        return .timedOut
    }
}
