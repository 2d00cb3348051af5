import Sessions
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// The HAProxy edge (config/haproxy.cfg.template through scripts/haproxy-config, a real haproxy): paths normalised
/// before its rules, a creation limit no spelling of `/v1/sessions` escapes, `/metrics` never exposed, a stick table
/// that holds digests only (none for ids that never existed) and forgets with the idle timeout, a per-address
/// connection limit, and HTTP redirected to HTTPS with HSTS.
@Suite("The HAProxy edge", .serialized, .enabled(if: TestCluster.isAvailable))
struct EdgeTests {
    /// Spellings of `POST /v1/sessions` that vmhost's router accepted on its own and the exact-path rule missed.
    static let creationVariants = [
        "/v1/sessions/", "/v1//sessions", "//v1/sessions", "/v1/%73essions", "/v1/./sessions",
    ]

    @Test func theEdgeNormalisesPathsLimitsEverySpellingOfCreationAndHidesMetrics() async throws {
        var options = TestCluster.ProxyOptions()
        // NB: few creations, so that all of them fall within the limit's 10 s window even under a sanitizer on a
        // loaded machine (20 took longer once, under ThreadSanitizer: the first refusal's rate had dropped to 20).
        options.sessionRate = 5
        options.connectionLimit = 8
        options.sessionIdleTimeout = 120
        let cluster = try await TestCluster.start(nodes: 1, proxy: options)
        defer { cluster.stop() }
        let client = cluster.client

        // 5 creations, one per spelling: each counts (one that did not would leave room for the next). The
        // spellings the edge normalises reach the node as `/v1/sessions` and create a session.
        for variant in Self.creationVariants {
            let answer = try await client.post(variant)
            #expect(answer.status != 429, "\(variant)")
            if variant != "/v1/sessions/" { #expect(answer.status == 201, "\(variant): \(answer.text)") }
        }
        for variant in Self.creationVariants + ["/v1/sessions", "/V1/SESSIONS"] {
            let refused = try await client.post(variant)
            #expect(refused.status == 429, "\(variant) escaped the creation limit")
            #expect(refused.errorCode == "too_many_sessions")
        }

        // Metrics: never through the edge, whatever the spelling; the node itself still serves them.
        for path in ["/metrics", "/metrics/", "//metrics", "/%6detrics", "/METRICS", "/metrics?x=1"] {
            let hidden = try await client.get(path)
            #expect(hidden.status == 404, "\(path)")
            #expect(hidden.errorCode == "not_found", "\(path)")
        }
        #expect(try await TestHTTPClient(port: cluster.nodes[0].port).get("/metrics").status == 200)

        // The stick table: the digest of a session this proxy served, never its id; no entry for an id that never
        // existed; entries expire with the session idle timeout.
        let other = TestHTTPClient(port: cluster.port)
        let id = try #require(
            try await TestHTTPClient(port: cluster.nodes[0].port).post("/v1/sessions").json?["id"]?
                .stringValue)
        #expect(try await other.get("/v1/sessions/\(id)").status == 200)
        #expect(try await other.post("/v1/sessions/\(id)/search/text", json: ["text": "cats"]).status == 200)
        let never = "QUJDREVGR0hJSktMTU5PUFFS.n1"
        #expect(try await other.get("/v1/sessions/\(never)").status == 404)
        let table = try await cluster.runtimeAPI("show table vmhost_sessions")
        let entries = table.split(separator: "\n").filter { $0.contains("key=") }
        #expect(entries.count == 1, "one session served: \(table)")
        #expect(table.contains("key=\(SessionID.digest(id)) "), "\(table)")
        #expect(!table.contains(String(id.prefix(22))), "no raw id: \(table)")
        #expect(!table.contains(SessionID.digest(never)) && !table.contains("QUJDREVGR0hJSktMTU5PUFFS"))
        let expiry = entries.first.flatMap { entry in
            entry.split(separator: " ").first { $0.hasPrefix("exp=") }.flatMap { Int($0.dropFirst(4)) }
        }
        #expect(expiry.map { $0 > 100_000 && $0 <= 120_000 } == true, "expires with the idle timeout: \(table)")
    }

    @Test func oneAddressHoldsAtMostItsConnections() async throws {
        var options = TestCluster.ProxyOptions()
        options.connectionLimit = 4
        let cluster = try await TestCluster.start(nodes: 1, proxy: options)
        defer { cluster.stop() }
        var open: [TestSocket] = []
        defer { for socket in open { socket.close() } }
        // NB: the start's readiness check closed its connection, but HAProxy may not have seen the close yet: it
        // would count as one of this address's four (CI once saw the fourth refused).
        #expect(
            await eventually {
                guard let table = try? await cluster.runtimeAPI("show table vmhost_connections") else { return false }
                return !table.split(separator: "\n").contains {
                    $0.contains("key=127.0.0.1 ") && !$0.contains("conn_cur=0")
                }
            })
        for _ in 0..<4 {
            let socket = try TestSocket(port: cluster.port)
            try socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try socket.readLine().hasPrefix("HTTP/1.1 200"))
            open.append(socket)
        }
        let fifth = try TestSocket(port: cluster.port)
        defer { fifth.close() }
        try? fifth.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(throws: (any Error).self, "the fifth connection is closed at accept") { try fifth.readLine() }

        // Another address is not affected; nor is this one once a connection is given back.
        let output = "/tmp/vmhost-edge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(output) }
        try await cluster.shell(
            "curl -s --interface 127.0.0.2 -o /dev/null -w '%{http_code}' "
                + "http://127.0.0.1:\(cluster.port)/healthz > '\(output)'")
        #expect(try String(contentsOfLog: output) == "200")
        open.removeLast().close()
        #expect(await eventually { (try? await TestHTTPClient(port: cluster.port).get("/healthz"))?.status == 200 })
    }

    @Test func plainHTTPRedirectsToHTTPSWhichCarriesHSTS() async throws {
        var options = TestCluster.ProxyOptions()
        options.keepPlainHTTP = false
        let cluster = try await TestCluster.start(nodes: 1, proxy: options)
        defer { cluster.stop() }
        let plain = try await cluster.client.get("/v1/sessions/x?y=1")
        #expect(plain.status == 301)
        #expect(plain.header("Location") == "https://127.0.0.1:\(cluster.tlsPort)/v1/sessions/x?y=1")
        #expect(plain.header("Strict-Transport-Security") == nil, "HSTS only over TLS (RFC 6797)")
        #expect(try await cluster.client.post("/v1/sessions").status == 301, "nothing is served over plain HTTP")

        let output = "/tmp/vmhost-edge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(output) }
        try await cluster.shell(
            "curl -sk -D - -o /dev/null https://127.0.0.1:\(cluster.tlsPort)/healthz > '\(output)'")
        let head = try String(contentsOfLog: output).lowercased()
        #expect(head.hasPrefix("http/2 200") || head.hasPrefix("http/1.1 200"), "\(head)")
        #expect(head.contains("strict-transport-security: max-age=31536000"), "\(head)")
    }

    /// A second proxy started on the first one's address fails to bind (`noreuseport`), instead of sharing the
    /// port with it and splitting the traffic, and every per-address limit, between the two.
    @Test func aSecondProxyOnTheSameAddressFailsToStart() async throws {
        let cluster = try await TestCluster.start(nodes: 1)
        defer { cluster.stop() }
        let output = "/tmp/vmhost-edge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { for suffix in ["", ".cfg", ".sock"] { unlink(output + suffix) } }
        // The same configuration with a stats socket of its own (the first proxy's is left alone).
        try await cluster.shell(
            "sed 's#stats socket [^ ]*#stats socket \(output).sock#' '\(cluster.proxyConfigurationPath)' "
                + "> '\(output).cfg' && { timeout 10 /usr/sbin/haproxy -db -f '\(output).cfg' 2> '\(output)'; "
                + "echo \"exit=$?\" >> '\(output)'; }")
        let log = try String(contentsOfLog: output)
        #expect(log.contains("Address already in use"), "\(log)")
        #expect(!log.contains("exit=0") && !log.contains("exit=124"), "it exits at once, with an error: \(log)")
        #expect(try await cluster.client.get("/healthz").status == 200, "the first proxy serves on")
    }
}
