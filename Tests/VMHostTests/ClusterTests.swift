import JSON
import Synchronization
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Several real vmhost processes behind a real HAProxy (config/haproxy.cfg.template) sharing a real Redis:
/// routing by the node part of session ids, takeover when a node dies, drain and rolling restart, HTTP/2 at
/// the edge and the per-address limit on creating sessions.
@Suite("Cluster behind HAProxy", .serialized, .enabled(if: TestCluster.isAvailable))
struct ClusterTests {
    /// Creates `count` sessions through the proxy; returns their ids with the node that answered.
    static func createSessions(_ cluster: TestCluster, _ count: Int) async throws -> [(id: String, node: String)] {
        let client = cluster.client
        var sessions: [(String, String)] = []
        for _ in 0..<count {
            let created = try await client.post("/v1/sessions")
            try #require(created.status == 201)
            let id = try #require(created.json?["id"]?.stringValue)
            sessions.append((id, try #require(created.header("X-VMHost-Node"))))
        }
        return sessions
    }

    @Test func everyRequestOfASessionStreamsIncludedReachesTheNodeThatCreatedIt() async throws {
        let cluster = try await TestCluster.start(nodes: 3)
        defer { cluster.stop() }
        let sessions = try await Self.createSessions(cluster, 100)
        let counts = Dictionary(grouping: sessions, by: \.node).mapValues(\.count)
        #expect(Set(counts.keys) == ["n1", "n2", "n3"], "creation is spread over every node: \(counts)")
        for (id, node) in sessions {
            #expect(id.hasSuffix(".\(node)"), "the id names its node: \(id)")
        }

        let client = cluster.client
        for (index, (id, node)) in sessions.enumerated() {
            #expect(try await client.get("/v1/sessions/\(id)").header("X-VMHost-Node") == node)
            let command = try await client.post("/v1/sessions/\(id)/search/text", json: ["text": .string("t\(index)")])
            #expect(command.status == 200 && command.header("X-VMHost-Node") == node)
            if index % 10 == 0 {
                // Streams too; and events come through one by one (nothing buffered in the proxy).
                let stream = try await TestEventStream(port: cluster.port, path: "/v1/sessions/\(id)/search/events")
                #expect(stream.header("X-VMHost-Node") == node)
                #expect(try await stream.next()?.event == "snapshot")
                for step in 0..<3 {
                    let text = "step \(step)"
                    _ = try await client.post("/v1/sessions/\(id)/search/text", json: ["text": .string(text)])
                    let patch = try #require(try await stream.next())
                    #expect(patch.event == "patch" && patch.data.contains(text))
                }
                stream.close()
            }
        }
    }

    @Test func streamsPerSessionAreLimitedThroughTheProxy() async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        defer { cluster.stop() }
        let (id, node) = try #require(try await Self.createSessions(cluster, 1).first)
        // The proxy sends every stream to the session's node, which allows a fixed number per session.
        var streams: [TestEventStream] = []
        for index in 0..<TestCluster.maxStreamsPerSession {
            let path = index.isMultiple(of: 2) ? "/v1/sessions/\(id)/events" : "/v1/sessions/\(id)/search/events"
            let stream = try await TestEventStream(port: cluster.port, path: path)
            try #require(stream.status == 200, "stream \(index)")
            streams.append(stream)
        }
        let refused = try await cluster.client.get("/v1/sessions/\(id)/products/events")
        #expect(refused.status == 429)
        #expect(refused.errorCode == "too_many_streams")
        #expect(refused.header("Retry-After") != nil)
        #expect(refused.header("X-VMHost-Node") == node)
        // The node still answers everything else, and the limit is per session.
        #expect(try await cluster.client.get("/v1/sessions/\(id)").status == 200)
        let other = try #require(try await Self.createSessions(cluster, 1).first)
        let otherStream = try await TestEventStream(port: cluster.port, path: "/v1/sessions/\(other.id)/events")
        #expect(otherStream.status == 200)
        otherStream.close()
        for stream in streams { stream.close() }
    }

    @Test func whenANodeIsKilledItsStreamsResumeOnLiveNodesWithNoGap() async throws {
        let cluster = try await TestCluster.start(nodes: 3)
        defer { cluster.stop() }
        let sessions = try await Self.createSessions(cluster, 300)
        // Loaded state: a page of products in every session, kept across the takeover.
        let client = cluster.client
        var products: [String: JSONValue] = [:]
        for (id, _) in sessions {
            let loaded = try await client.post("/v1/sessions/\(id)/products/refresh", headers: [("Prefer", "wait=10")])
            try #require(loaded.status == 200 && loaded.json?["items"]?.arrayValue?.isEmpty == false)
            products[id] = loaded.json
        }
        let load = try await Load.start(cluster, sessions.map(\.id))
        defer { load.abandon() }

        // Kill the node holding n2's sessions while commands flow and every session has a stream.
        let victim = "n2"
        let victims = load.clients.filter { $0.snapshot.node == victim }
        #expect(victims.count >= 50)
        try await Task.sleep(for: .milliseconds(300))
        let killed = ContinuousClock.now
        try await cluster.kill(1)
        let resumed = await eventually(timeout: .seconds(8), every: .milliseconds(20)) {
            victims.allSatisfy {
                let record = $0.snapshot
                return record.node != victim && record.connections > 1
            }
        }
        let took = ContinuousClock.now - killed
        #expect(resumed, "every stream of the killed node reconnected to a live node")
        #expect(took < .seconds(5), "the last stream resumed \(took) after the kill")
        print("cluster: \(victims.count) streams of the killed node resumed within \(took)")
        try await Task.sleep(for: .milliseconds(300))
        try await load.finish(cluster, allowGatewayErrors: true)
        var takenOver = 0.0
        for node in [cluster.nodes[0], cluster.nodes[2]] {
            takenOver += try await Self.metric("vmhost_sessions_taken_over_total", port: node.port)
        }
        #expect(takenOver >= Double(victims.count), "/metrics counts the sessions taken over")
        for (id, _) in sessions {
            let kept = try await cluster.client.get("/v1/sessions/\(id)/products").json
            #expect(kept == products[id], "loaded state kept")
        }
    }

    /// The value of an unlabelled metric on a node's `/metrics`.
    static func metric(_ name: String, port: Int) async throws -> Double {
        let text = try await TestHTTPClient(port: port).get("/metrics").text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return try #require(line.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }, "\(name)")
    }

    @Test(.enabled(if: ExecutableTests.canOpenManySockets))
    func sigtermWithAThousandStreamsHandsEverySessionOverWithinFiveSeconds() async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        defer { cluster.stop() }
        let node = cluster.nodes[0]
        let direct = TestHTTPClient(port: node.port)
        var ids: [String] = []
        for index in 0..<50 {
            let id = try #require(try await direct.post("/v1/sessions").json?["id"]?.stringValue)
            _ = try await direct.post("/v1/sessions/\(id)/search/text", json: ["text": .string("drain \(index)")])
            ids.append(id)
        }
        var streams: [TestEventStream] = []
        for id in ids {
            streams += try await withThrowingTaskGroup(of: TestEventStream.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await TestEventStream(port: node.port, path: "/v1/sessions/\(id)/search/events")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        for stream in streams { #expect(try await stream.next()?.event == "snapshot") }
        let before = try await ids.asyncMap { id in try await direct.get("/v1/sessions/\(id)/search").json }

        let (status, took) = try await cluster.drain(0)
        #expect(status == 0)
        #expect(took < .seconds(5), "drained 1,000 streams in \(took)")
        print("cluster: drain with \(streams.count) streams took \(took)")
        var ended = 0
        for stream in streams where try await stream.next() == nil { ended += 1 }
        #expect(ended == 1000, "every stream ended with its final chunk")
        // Every session continues on the other node, through the proxy, with the same state and version.
        let client = cluster.client
        for (id, state) in zip(ids, before) {
            let after = try await client.get("/v1/sessions/\(id)/search")
            #expect(after.header("X-VMHost-Node") == "n2")
            #expect(after.json == state)
        }
    }

    @Test func drainAndRollingRestartOfEveryNodeUnderLoadLoseNothing() async throws {
        let cluster = try await TestCluster.start(nodes: 3)
        defer { cluster.stop() }
        let sessions = try await Self.createSessions(cluster, 90)
        let load = try await Load.start(cluster, sessions.map(\.id))
        defer { load.abandon() }
        for index in 0..<3 {
            let id = cluster.nodes[index].id
            let before = load.clients.filter { $0.snapshot.node == id }
            let (status, took) = try await cluster.drain(index)
            #expect(status == 0)
            #expect(took < .seconds(5))
            let moved = await eventually(timeout: .seconds(8), every: .milliseconds(20)) {
                before.allSatisfy {
                    let record = $0.snapshot
                    return record.node != id
                }
            }
            #expect(moved, "the streams of the drained node \(id) reconnected elsewhere")
            try await cluster.startNode(index)
            try await cluster.waitUntilUp(index)
        }
        try await load.finish(cluster, allowGatewayErrors: false)
    }

    @Test func http2AtTheEdgeCarriesManyStreamsAndCommandsOnOneConnection() async throws {
        let cluster = try await TestCluster.start(nodes: 2)
        defer { cluster.stop() }
        let id = try #require(try await Self.createSessions(cluster, 1).first?.id)
        let base = "https://127.0.0.1:\(cluster.tlsPort)/v1/sessions/\(id)"
        let directory = "/tmp/vmhost-h2-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try await cluster.shell("mkdir -p '\(directory)'")
        defer { _ = try? SpawnedProcess("/bin/rm", ["-rf", directory]).waitForExit() }
        let format = "%{http_version} %{num_connects} %{response_code} %header{x-vmhost-node}\\n"
        // 20 streams and one command, multiplexed: curl waits for the first connection, then reuses it.
        let command =
            "curl -sk --http2 --parallel --parallel-max 30 --max-time 4 -N -w '\(format)' "
            + "-o '\(directory)/stream-#1' '\(base)/search/events?n=[1-20]' "
            + "--next -sk --http2 -N -w '\(format)' -o '\(directory)/command' -H 'Content-Type: application/json' "
            + "-d '{\"text\": \"over h2\"}' '\(base)/search/text' > '\(directory)/summary' 2>/dev/null; true"
        try await cluster.shell(command)
        let lines = try String(contentsOfLog: "\(directory)/summary").split(separator: "\n")
        #expect(lines.count == 21)
        let fields = lines.map { $0.split(separator: " ").map(String.init) }
        #expect(fields.allSatisfy { $0.first == "2" }, "HTTP/2: \(lines)")
        #expect(fields.compactMap { Int($0[1]) }.reduce(0, +) == 1, "one TLS connection for all: \(lines)")
        #expect(fields.filter { $0[2] == "200" }.count == 21)
        #expect(Set(fields.compactMap { $0.count > 3 ? $0[3] : nil }).count == 1, "one node serves the session")
        for index in 1...20 {
            let text = try String(contentsOfLog: "\(directory)/stream-\(index)")
            #expect(text.contains("event: snapshot"))
            #expect(text.contains("over h2"), "the command reached every stream")
        }
    }

    @Test func sessionCreationIsLimitedPerClientAddressAtTheProxy() async throws {
        let cluster = try await TestCluster.start(nodes: 1, sessionRate: 20)
        defer { cluster.stop() }
        let client = cluster.client
        for _ in 0..<20 { #expect(try await client.post("/v1/sessions").status == 201) }
        let refused = try await client.post("/v1/sessions")
        #expect(refused.status == 429)
        #expect(refused.errorCode == "too_many_sessions")
        #expect(refused.json?["error"]?["message"]?.stringValue?.isEmpty == false)
        #expect(refused.header("Content-Type") == "application/json")
        #expect(refused.header("Retry-After") == "10")
        // Other requests from the same address still pass, and another address still creates sessions.
        #expect(try await client.get("/healthz").status == 200)
        let output = "/tmp/vmhost-rate-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(output) }
        try await cluster.shell(
            "curl -s --interface 127.0.0.2 -o /dev/null -w '%{http_code}' -X POST "
                + "http://127.0.0.1:\(cluster.port)/v1/sessions > '\(output)'"
        )
        #expect(try String(contentsOfLog: output) == "201")
    }
}

extension Array {
    /// `transform` on each element in order.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

/// Sessions under load through the proxy: one EventSource-like stream each, and commands (`search/text` with
/// `Idempotency-Key`, retried with the same key after a 503 or a broken connection) cycling over them.
final class Load: Sendable {
    let clients: [FollowingClient]
    private let runs: [Task<Void, Never>]
    private let commands = Mutex<Task<Void, Never>?>(nil)
    private let stopped = Atomic(false)
    struct Answers {
        /// The text of the last answered command, and the versions answered, per session.
        var lastText: [String: String] = [:]
        var versions: [String: [Int]] = [:]
        var retries = 0
        var gatewayErrors = 0
        var problems: [String] = []
    }
    private let answers = Mutex(Answers())

    private init(clients: [FollowingClient], runs: [Task<Void, Never>]) {
        self.clients = clients
        self.runs = runs
    }

    /// Opens one stream per session (waiting until each has its snapshot), then starts the commands.
    static func start(_ cluster: TestCluster, _ ids: [String]) async throws -> Load {
        let clients = ids.map { FollowingClient(sessionID: $0, port: cluster.port) }
        let runs = clients.map { client in Task { await client.run() } }
        let connected = await eventually(timeout: .seconds(15)) {
            clients.allSatisfy { $0.snapshot.state != nil }
        }
        try #require(connected, "every stream opened through the proxy")
        let port = cluster.port
        let load = Load(clients: clients, runs: runs)
        load.commands.withLock { $0 = Task { await load.sendCommands(ids, port: port) } }
        return load
    }

    private func sendCommands(_ ids: [String], port: Int) async {
        var client = TestHTTPClient(port: port)
        var round = 0
        while !stopped.load(ordering: .relaxed) {
            for id in ids where !stopped.load(ordering: .relaxed) {
                let text = "r\(round) \(id.prefix(6))"
                let key = "k\(round)-\(id)"
                var attempts = 0
                while attempts < 20, !stopped.load(ordering: .relaxed) {
                    attempts += 1
                    let response: TestHTTPResponse
                    do {
                        response = try await client.post(
                            "/v1/sessions/\(id)/search/text", json: ["text": .string(text)],
                            headers: [("Idempotency-Key", key)]
                        )
                    } catch {
                        client.close()
                        client = TestHTTPClient(port: port)
                        answers.withLock { $0.retries += 1 }
                        continue
                    }
                    if response.status == 200 {
                        let version = response.json?["version"]?.intValue ?? 0
                        answers.withLock {
                            if response.json?["searchText"]?.stringValue != text {
                                $0.problems.append("\(id): answer with another text")
                            }
                            $0.lastText[id] = text
                            $0.versions[id, default: []].append(version)
                        }
                        break
                    }
                    if response.status == 503, response.header("Retry-After") != nil {
                        answers.withLock { $0.retries += 1 }
                    } else if response.status == 502 || response.status == 504 {
                        answers.withLock { $0.gatewayErrors += 1 }
                    } else {
                        answers.withLock { $0.problems.append("\(id): command answered \(response.status)") }
                        break
                    }
                    try? await Task.sleep(for: .milliseconds(50))
                }
            }
            round += 1
            try? await Task.sleep(for: .milliseconds(20))
        }
        client.close()
    }

    /// Stops the commands and the clients without checking anything: a test that ends early (a failed
    /// `#require`, a node that does not come back) must not leave them retrying against a stopped proxy, which
    /// would hang the whole test run.
    func abandon() {
        stopped.store(true, ordering: .relaxed)
        for following in clients { following.stop() }
    }

    /// Stops the commands, waits until every client's state equals `GET` through the proxy, checks what
    /// the clients and the commands saw, and stops the clients.
    func finish(_ cluster: TestCluster, allowGatewayErrors: Bool) async throws {
        stopped.store(true, ordering: .relaxed)
        await commands.withLock({ $0 })?.value
        let client = cluster.client
        var mismatched: [String] = []
        for following in clients {
            let path = "/v1/sessions/\(following.sessionID)/search"
            let converged = try await eventually(timeout: .seconds(10)) {
                guard let state = try await client.get(path).json else { return false }
                return following.snapshot.state == state
            }
            if !converged { mismatched.append(following.sessionID) }
        }
        #expect(mismatched.isEmpty, "clients whose events do not rebuild the state: \(mismatched)")
        let answered = answers.withLock { $0 }
        for following in clients {
            let record = following.snapshot
            #expect(record.problems.isEmpty, "\(following.sessionID): \(record.problems)")
            if let text = answered.lastText[following.sessionID] {
                #expect(record.state?["searchText"]?.stringValue == text, "the last answered command took effect")
            }
            let versions = answered.versions[following.sessionID] ?? []
            #expect(
                versions == versions.sorted() && Set(versions).count == versions.count, "answered versions increase"
            )
        }
        #expect(answered.problems.isEmpty, "\(answered.problems)")
        // NB: how many depends on the machine (a sanitizer build answers far fewer): some must have flowed.
        #expect(answered.versions.values.map(\.count).reduce(0, +) >= clients.count / 10, "commands flowed")
        if !allowGatewayErrors { #expect(answered.gatewayErrors == 0, "no 502/504 reached a client") }
        let reconnects = clients.map { $0.snapshot.connections - 1 }.reduce(0, +)
        let retried = clients.map { $0.snapshot.retriedAnswers }.reduce(0, +)
        print(
            "cluster: \(answered.versions.values.map(\.count).reduce(0, +)) commands answered, "
                + "\(answered.retries) retried, \(answered.gatewayErrors) 502/504; \(reconnects) stream reconnects, "
                + "\(retried) stream 503s"
        )
        for following in clients { following.stop() }
        for run in runs { await run.value }
    }
}
