import JSON
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Several real `vmhost` processes sharing a throwaway `redis-server`, behind a real HAProxy started from
/// `config/haproxy.cfg.template` (filled by `scripts/haproxy-config`, as `scripts/cluster` does), all on
/// free loopback ports. Everything is stopped by process id in ``stop()``.
///
/// `@unchecked Sendable`: one test drives it from one task at a time.
final class TestCluster: @unchecked Sendable {
    /// One vmhost node.
    struct Node {
        let id: String
        var port: Int
        var process: SpawnedProcess?
    }

    /// The package root (`…/Tests/VMHostTests/TestCluster.swift` → `…`).
    static var root: String {
        var path = Substring(#filePath)
        for _ in 0..<3 {
            if let slash = path.lastIndex(of: "/") { path = path[..<slash] }
        }
        return String(path)
    }

    /// Whether the binaries the cluster tests run are here.
    static var isAvailable: Bool {
        access(ExecutableTests.binary, X_OK) == 0 && access("/usr/sbin/haproxy", X_OK) == 0
            && access("/usr/bin/redis-server", X_OK) == 0 && access("/usr/bin/openssl", X_OK) == 0
            && access("/usr/bin/curl", X_OK) == 0
    }

    let redis: RedisServerProcess
    private(set) var nodes: [Node] = []
    /// HAProxy's plain HTTP port.
    private(set) var port: Int
    /// HAProxy's HTTPS port (HTTP/2 and HTTP/1.1 by ALPN).
    private(set) var tlsPort: Int
    private var proxy: SpawnedProcess?
    private let directory: String

    private init(redis: RedisServerProcess, port: Int, tlsPort: Int, directory: String) {
        self.redis = redis
        self.port = port
        self.tlsPort = tlsPort
        self.directory = directory
    }

    deinit { stop() }

    /// What `scripts/haproxy-config` is told beyond the nodes.
    struct ProxyOptions {
        /// Sessions one client address may create per 10 seconds.
        var sessionRate = 100_000
        /// Concurrent connections one client address may hold.
        var connectionLimit = 100_000
        /// How long the stick table remembers a session (seconds).
        var sessionIdleTimeout = 1800
        /// Whether plain HTTP is served next to TLS (else it redirects to HTTPS).
        var keepPlainHTTP = true
    }

    /// Starts Redis, `nodes` vmhost nodes (`n1`…) and HAProxy; waits until the proxy answers `/healthz`.
    /// - Parameter sessionRate: sessions one client address may create per 10 seconds at the proxy.
    static func start(nodes count: Int, sessionRate: Int = 100_000) async throws -> TestCluster {
        var options = ProxyOptions()
        options.sessionRate = sessionRate
        return try await start(nodes: count, proxy: options)
    }

    /// Starts Redis, `nodes` vmhost nodes (`n1`…) and HAProxy configured with `proxy`.
    static func start(nodes count: Int, proxy options: ProxyOptions) async throws -> TestCluster {
        let redis = try RedisServerProcess()
        try await redis.start()
        let template = "/tmp/vmhost-cluster-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        guard let created = mkdtemp(strdup(template + ".XXXXXX")) else { throw TestClientError("mkdtemp failed") }
        let directory = String(cString: created)
        free(created)
        let cluster = TestCluster(
            redis: redis, port: try TestListener.closedPort(), tlsPort: try TestListener.closedPort(),
            directory: directory
        )
        do {
            for index in 1...count {
                cluster.nodes.append(Node(id: "n\(index)", port: try TestListener.closedPort(), process: nil))
                // NB: a port found free can be taken by another test before the node binds it; before the
                // proxy knows the ports, a node that does not come up gets a fresh port and a second try.
                do {
                    try await cluster.startNode(index - 1)
                } catch {
                    try await cluster.kill(index - 1)
                    cluster.nodes[index - 1].port = try TestListener.closedPort()
                    try await cluster.startNode(index - 1)
                }
            }
            // NB: the same for the proxy's two ports (CI once saw HAProxy refuse one as in use).
            do {
                try await cluster.startProxy(options)
            } catch {
                cluster.stopProxy()
                cluster.port = try TestListener.closedPort()
                cluster.tlsPort = try TestListener.closedPort()
                try await cluster.startProxy(options)
            }
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }

    /// The configuration HAProxy runs (what `scripts/haproxy-config` printed).
    var proxyConfigurationPath: String { "\(directory)/haproxy.cfg" }

    /// A client of the proxy's HTTP port.
    var client: TestHTTPClient { TestHTTPClient(port: port) }

    /// Open event streams a node allows per session: the tests open 20 of one session (the default is 8).
    static let maxStreamsPerSession = 24

    /// The nodes' configuration file (in the cluster's directory).
    private func nodeConfig() throws -> String {
        let path = "\(directory)/node.json"
        guard access(path, R_OK) != 0 else { return path }
        guard let file = fopen(path, "w") else { throw TestClientError("cannot write \(path)") }
        fputs(#"{"maxStreamsPerSession": \#(Self.maxStreamsPerSession)}"#, file)
        fclose(file)
        return path
    }

    /// Starts (or restarts) node `index` on its port and waits until it answers with the journal up.
    func startNode(_ index: Int) async throws {
        let node = nodes[index]
        let process = try SpawnedProcess(
            ExecutableTests.binary,
            [
                "--port", String(node.port), "--node-id", node.id, "--redis-url", redis.url(), "--log-level", "warning",
                "--config", try nodeConfig(),
            ],
            standardError: "\(directory)/\(node.id).log"
        )
        nodes[index].process = process
        let direct = TestHTTPClient(port: node.port)
        // NB: the answer must come from this process: another test's server may have taken the port first.
        let ready = await eventually(timeout: .seconds(20)) {
            guard process.isListening(onPort: node.port) else { return false }
            return (try? await direct.get("/healthz"))?.json?["journal"] == "ok"
        }
        guard ready else { throw TestClientError("node \(node.id) did not start") }
    }

    /// Sends `signal` to node `index` without waiting.
    func signal(_ index: Int, _ number: Int32) { nodes[index].process?.signal(number) }

    /// `SIGKILL`s node `index` and reaps it.
    func kill(_ index: Int) async throws {
        guard let process = nodes[index].process else { return }
        process.signal(SIGKILL)
        _ = try await process.exit().value
        nodes[index].process = nil
    }

    /// `SIGTERM`s node `index`; returns its exit status and how long it took to exit.
    func drain(_ index: Int) async throws -> (status: Int32, took: Duration) {
        guard let process = nodes[index].process else { throw TestClientError("node \(index) is not running") }
        let started = ContinuousClock.now
        process.signal(SIGTERM)
        let (status, exited) = try await process.exit().value
        nodes[index].process = nil
        return (status, exited - started)
    }

    /// Runs a shell command line in the package root; throws unless it exits 0.
    @discardableResult
    func shell(_ command: String) async throws -> Int32 {
        let process = try SpawnedProcess("/bin/sh", ["-c", "cd '\(Self.root)' && \(command)"])
        let status = try await offPool { process.waitForExit() }
        guard status == 0 else { throw TestClientError("'\(command)' exited with \(status)") }
        return status
    }

    /// The state of every server of backend `vmhost_sessions` as HAProxy's runtime API reports it (`UP`,
    /// `DOWN`, …) by node id.
    func serverStates() async throws -> [String: String] {
        let text = try await runtimeAPI("show stat")

        var states: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            if fields.count > 17, fields[0] == "vmhost_sessions", fields[1] != "BACKEND" {
                states[String(fields[1])] = String(fields[17])
            }
        }
        return states
    }

    /// The answer of HAProxy's runtime API (the admin socket) to `command` (`show stat`, `show table NAME`).
    func runtimeAPI(_ command: String) async throws -> String {
        let output = "\(directory)/runtime-\(UInt32.random(in: 0...UInt32.max)).txt"
        defer { unlink(output) }
        let script = """
            import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); \
            s.sendall(sys.argv[3].encode() + b"\\n"); data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk: break
                data += chunk
            open(sys.argv[2], "wb").write(data)
            """
        try await shell("python3 -c '\(script)' '\(directory)/haproxy.sock' '\(output)' '\(command)'")
        return try String(contentsOfLog: output)
    }

    /// Waits until HAProxy sees node `index` up.
    func waitUntilUp(_ index: Int) async throws {
        let id = nodes[index].id
        let up = try await eventually(timeout: .seconds(15), every: .milliseconds(100)) {
            try await self.serverStates()[id]?.hasPrefix("UP") == true
        }
        guard up else { throw TestClientError("HAProxy does not see \(id) up") }
    }

    private func startProxy(_ options: ProxyOptions) async throws {
        try await shell(
            "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -keyout '\(directory)/key.pem' "
                + "-out '\(directory)/cert.pem' 2>/dev/null && cat '\(directory)/cert.pem' '\(directory)/key.pem' > "
                + "'\(directory)/haproxy.pem'"
        )
        let servers = nodes.map { "\($0.id)=127.0.0.1:\($0.port)" }.joined(separator: " ")
        try await shell(
            "scripts/haproxy-config --port \(port) --tls-port \(tlsPort) --cert '\(directory)/haproxy.pem' "
                + "--socket '\(directory)/haproxy.sock' --session-rate \(options.sessionRate) "
                + "--conn-limit \(options.connectionLimit) --session-idle-timeout \(options.sessionIdleTimeout) "
                + (options.keepPlainHTTP ? "--keep-plain-http " : "") + "\(servers) > '\(proxyConfigurationPath)'"
        )
        let process = try SpawnedProcess(
            "/usr/sbin/haproxy", ["-db", "-f", proxyConfigurationPath], standardError: "\(directory)/haproxy.log"
        )
        proxy = process
        let client = TestHTTPClient(port: port)
        // NB: without plain HTTP, the HTTP port answers every request with a redirect to HTTPS.
        let expected = options.keepPlainHTTP ? 200 : 301
        // NB: this proxy must hold both ports: CI once saw a creation past the per-address limit answered by another
        // test's proxy on the same port (SO_REUSEPORT, before the template said `noreuseport`).
        let ports = (port, tlsPort)
        let ready = await eventually(timeout: .seconds(10)) {
            guard process.isListening(onPort: ports.0), process.isListening(onPort: ports.1) else { return false }
            return (try? await client.get("/healthz"))?.status == expected
        }
        client.close()
        guard ready else {
            let log = (try? String(contentsOfLog: "\(directory)/haproxy.log")) ?? ""
            throw TestClientError("HAProxy did not start: \(log)")
        }
    }

    /// Stops HAProxy (when it runs) by process id.
    private func stopProxy() {
        proxy?.signal(SIGKILL)
        _ = proxy?.waitForExit()
        proxy = nil
    }

    /// Stops HAProxy, every node and Redis by process id, and removes the temporary files.
    func stop() {
        for process in [proxy] + nodes.map(\.process) {
            guard let process else { continue }
            process.signal(SIGKILL)
            _ = process.waitForExit()
        }
        proxy = nil
        for index in nodes.indices { nodes[index].process = nil }
        redis.kill()
        _ = try? SpawnedProcess("/bin/rm", ["-rf", directory]).waitForExit()
    }
}
