import Sessions
import Testing
import VMHost
import VMHostTesting

/// Session ids are capabilities: Redis keys and log lines name a session by its digest (API.md, "What never leaves
/// the server"), and sessions written under the id by earlier releases still load.
@Suite("Session ids never in Redis keys or logs", .serialized)
struct SessionDigestTests {
    @Test func theDigestIsStableShortAndNotTheId() {
        let id = "VNxTH8byXi7Mi-jKwodeZQ.n2"
        let digest = SessionID.digest(id)
        #expect(digest == SessionID.digest(id), "stable across calls (and processes: SHA-256)")
        #expect(digest.utf8.count == 24, "144 bits")
        #expect(digest != SessionID.digest("VNxTH8byXi7Mi-jKwodeZQ.n1"))
        #expect(!digest.contains("VNxTH8byXi7Mi"))
        // SHA-256("abc") begins ba7816bf8f01cfea414140de5dae2223b00361a3 (FIPS 180-2): base64url of its 18 bytes.
        #expect(SessionID.digest("abc") == "ungWv48Bz-pBQUDeXa4iI7AD")
    }

    @Test func redisKeysAndLogLinesCarryTheDigestOnly() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let firstLog = CapturedLog()
        let secondLog = CapturedLog()
        let configure: (String) -> (inout VMHostConfiguration) -> Void = { node in
            {
                $0.redisURL = redis.url()
                $0.nodeID = node
                $0.logLevel = .trace
            }
        }
        let first = try await TestApplication.start(configure("first"), log: firstLog)
        let second = try await TestApplication.start(configure("second"), log: secondLog)
        defer {
            Task {
                await first.stop()
                await second.stop()
            }
        }
        #expect(try await eventually { try await first.client.get("/healthz").json?["journal"] == "ok" })
        let id = try await first.createSession()
        let key = [("Idempotency-Key", "one")]
        #expect(
            try await first.client.post(
                "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"],
                headers: [("Prefer", "wait=10")] + key
            ).status == 200)
        #expect(try await first.client.post("/v1/sessions/\(id)/products/refresh").status == 202)
        #expect(await eventually { (try? redis.keys().count) ?? 0 >= 4 }, "the session, its keys and replay lists")

        // Taken over by the second application; the first learns it at its next write and logs the hand-over.
        #expect(try await second.client.get("/v1/sessions/\(id)").status == 200)
        _ = try await first.client.post("/v1/sessions/\(id)/search/text", json: ["text": "puppies"])
        #expect(await eventually { firstLog.text.contains("handed over") }, "the first application handed over")

        let keys = try redis.keys()
        let digest = SessionID.digest(id)
        let random = String(id.prefix(22))
        #expect(keys.contains("vmhost:{\(digest)}"), "\(keys)")
        #expect(keys.allSatisfy { !$0.contains(random) }, "no key holds the id: \(keys)")
        #expect(firstLog.text.contains("session=\(digest)"), "the hand-over names the digest")
        for log in [firstLog.text, secondLog.text] {
            #expect(!log.contains(random), "no log line holds the id")
        }
    }

    /// A session as the release before the digest wrote it (keys named by the id) loads, once, under the digest.
    @Test func aSessionInTheEarlierLayoutLoadsAndMovesToTheDigest() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        try await withApp(via: .router, { $0.redisURL = redis.url() }) { first in
            #expect(try await eventually { try await first.client.get("/healthz").json?["journal"] == "ok" })
            let id = try await first.createSession()
            #expect(
                try await first.client.post(
                    "/v1/sessions/\(id)/search/execute", json: ["text": "kittens"], headers: [("Prefer", "wait=10")]
                ).status == 200)
            let before = try #require(try await first.client.get("/v1/sessions/\(id)").json)
            let digest = SessionID.digest(id)
            let version = try #require(before["search"]?["version"]?.intValue)
            #expect(
                await eventually {
                    (try? redis.journaled(id, "search"))?.version == version
                }, "the session is durable at the version read")
            // Rewrite today's keys into the earlier layout: `vmhost:{ID}…` instead of `vmhost:{DIGEST}…`, as that
            // release (before epochs, too) wrote them.
            try redis.rewriteToTheLayoutBeforeEpochs(id)
            let earlier = try redis.keys()
            #expect(!earlier.isEmpty)
            for key in earlier {
                let renamed = key.replacingOccurrences(of: "{\(digest)}", with: "{\(id)}")
                #expect(try redis.command(["RENAME", key, renamed]) == "+OK")
            }
            #expect(try redis.keys().allSatisfy { $0.contains(id) })

            try await withApp({
                $0.redisURL = redis.url()
                $0.nodeID = "second"
            }) { second in
                #expect(try await eventually { try await second.client.get("/healthz").json?["journal"] == "ok" })
                let loaded = try await second.client.get("/v1/sessions/\(id)")
                #expect(loaded.status == 200)
                #expect(loaded.json == before, "the same state and versions")
                let after = try redis.keys()
                #expect(after.contains("vmhost:{\(digest)}"), "moved under the digest: \(after)")
                // Only the tombstone of the earlier hash stays under the id, owned by no process that writes.
                #expect(after.filter { $0.contains(id) } == ["vmhost:{\(id)}"], "\(after)")
                #expect(try redis.bulk(["HGET", "vmhost:{\(id)}", "owner"]) == "migrated")
                #expect(try await second.client.post("/v1/sessions/\(id)/products/refresh").status == 202)
            }
        }
    }
}

extension RedisServerProcess {
    /// Every key (`KEYS *`) of `database`, over a fresh connection.
    func keys(database: Int = 0) throws -> [String] {
        let socket = try TestSocket(port: port, timeoutSeconds: 5)
        defer { socket.close() }
        let select = "\(database)"
        try socket.write(
            authPrefix + "*2\r\n$6\r\nSELECT\r\n$\(select.utf8.count)\r\n\(select)\r\n*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n")
        if !authPrefix.isEmpty { _ = try socket.readLine() }
        _ = try socket.readLine()
        let head = try socket.readLine()
        guard head.hasPrefix("*"), let count = Int(head.dropFirst()) else { throw TestClientError("KEYS: \(head)") }
        var keys: [String] = []
        for _ in 0..<count {
            _ = try socket.readLine()
            keys.append(try socket.readLine())
        }
        return keys
    }
}
