import Bytes
import JSON
import Redis
import Sessions
import Testing
import VMHostTesting

@testable import Journal

extension RedisServerProcess {
    /// Sends one command over a fresh connection and returns its reply, binary-safe (the journal's values are
    /// compressed): bulk strings, integers, status lines and arrays of them.
    func reply(_ arguments: [String]) throws -> RedisReply {
        try reply(bytes: arguments.map { Array($0.utf8) })
    }

    /// The same with arguments of any bytes (a compressed value).
    func reply(bytes arguments: [[UInt8]]) throws -> RedisReply {
        let socket = try send(bytes: arguments)
        defer { socket.close() }
        return try Self.readReply(socket)
    }

    /// Sends one command in RESP (after `AUTH` when the server has a password, its reply read) over a fresh
    /// connection, which the caller reads the reply from and closes.
    func send(_ arguments: [String]) throws -> TestSocket {
        try send(bytes: arguments.map { Array($0.utf8) })
    }

    /// The same with arguments of any bytes.
    func send(bytes arguments: [[UInt8]]) throws -> TestSocket {
        let socket = try TestSocket(port: port, timeoutSeconds: 5)
        var text = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments { text += Array("$\(argument.count)\r\n".utf8) + argument + Array("\r\n".utf8) }
        do {
            try socket.write(Array(authPrefix.utf8) + text)
            if !authPrefix.isEmpty { _ = try socket.readLine() }
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    private static func readReply(_ socket: TestSocket) throws -> RedisReply {
        let head = try socket.readLine()
        let rest = String(head.dropFirst())
        switch head.first {
        case "$":
            guard let length = Int(rest) else { throw TestClientError("RESP: \(head)") }
            if length < 0 { return .null }
            let bytes = try socket.readExactly(length + 2)
            return .bulk(Array(bytes.dropLast(2)))
        case "*":
            guard let count = Int(rest) else { throw TestClientError("RESP: \(head)") }
            var elements: [RedisReply] = []
            for _ in 0..<max(0, count) { elements.append(try readReply(socket)) }
            return .array(elements)
        case ":":
            return .integer(Int64(rest) ?? 0)
        case "-":
            return .error(rest)
        default:
            return .status(rest)
        }
    }

    /// The bytes of a bulk reply (nil for none).
    func bytes(_ arguments: [String]) throws -> [UInt8]? {
        guard case .bulk(let bytes) = try reply(arguments) else { return nil }
        return bytes
    }

    /// The journal's epoch of session `id` (the hash's `e`; 0 for none: a record of a release before epochs).
    func epoch(_ id: String) throws -> Int {
        let hash = "vmhost:{\(SessionID.digest(id))}"
        return try bytes(["HGET", hash, "e"]).flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    }

    /// View model `name` of session `id` as Redis holds it: its checkpoint with the logged patches applied, as a
    /// takeover would read it (nil when Redis has no entry of it). Reads either layout: the epoch's keys, or the
    /// keys of a release before epochs.
    func journaled(_ id: String, _ name: String) throws -> SessionRecord.ViewModel? {
        let keys = JournalKeys(digest: SessionID.digest(id))
        let hash = keys.hash
        guard let entry = try bytes(["HGET", hash, "vm:" + name]) else { return nil }
        let epoch = try epoch(id)
        let compressor = JournalCompressor()
        let value =
            try (epoch == 0 ? bytes(["HGET", hash, "d:" + name]) : bytes(["GET", keys.delta(name, epoch: epoch)]))
        let (pending, delta) = try JournalRecordCoding.deltaKeyValue(value ?? [], compressor: compressor)
        let list = epoch == 0 ? keys.replay(name) : keys.replay(name, epoch: epoch)
        guard case .array(let list) = try reply(["LRANGE", list, "0", "-1"]) else { return nil }
        var replay: [(version: Int, patch: [UInt8])] = []
        for element in list {
            guard let bytes = element.bytes else { throw TestClientError("a replay entry that is not a string") }
            replay.append(try JournalRecordCoding.replayEntry(bytes, compressor: compressor))
        }
        replay += pending
        return try JournalRecordCoding.viewModel(
            name: name, entry: entry, delta: delta, replay: replay, compressor: compressor)
    }

    /// Rewrites session `id`'s keys as the release before delta keys held patches wrote them: `y` checkpoints,
    /// the patches a delta key held pushed to the list (with the list's expiry), the delta alone in the key.
    func rewriteToTheLayoutBeforePendingEntries(
        _ id: String, viewModels names: [String] = ["search", "products", "photo"]
    ) throws {
        let keys = JournalKeys(digest: SessionID.digest(id))
        let epoch = try epoch(id)
        let compressor = JournalCompressor()
        for name in names {
            guard let entry = try bytes(["HGET", keys.hash, "vm:" + name]),
                entry.first == JournalRecordCoding.checkpointTag
            else { continue }
            let earlier = [UInt8(ascii: "y")] + entry.dropFirst()
            #expect(
                try reply(bytes: [Array("HSET".utf8), Array(keys.hash.utf8), Array("vm:\(name)".utf8), earlier])
                    == .integer(0))
            let key = keys.delta(name, epoch: epoch)
            guard let value = try bytes(["GET", key]) else { continue }
            let (pending, delta) = try JournalRecordCoding.deltaKeyValue(value, compressor: compressor)
            if !pending.isEmpty {
                var entries: [[UInt8]] = []
                for (version, patch) in pending {
                    var text = ByteWriter()
                    JournalRecordCoding.writeReplayEntry(
                        version: version, patch: patch, compressor: compressor, into: &text)
                    entries.append(text.bytes)
                }
                let list = Array(keys.replay(name, epoch: epoch).utf8)
                #expect(try reply(bytes: [Array("RPUSHX".utf8), list] + entries).integer ?? 0 > 0)
            }
            let ttl = try reply(["PTTL", key]).integer ?? -1
            let set = [Array("SET".utf8), Array(key.utf8), delta ?? []]
            #expect(try reply(bytes: set + [Array("PX".utf8), Array("\(max(ttl, 1000))".utf8)]) == .status("OK"))
        }
    }

    /// Rewrites session `id`'s keys as the release before epochs wrote them: `z` checkpoints, each delta in the
    /// hash's `d:NAME`, the lists named without an epoch, no `e`.
    func rewriteToTheLayoutBeforeEpochs(
        _ id: String, viewModels names: [String] = ["search", "products", "photo"]
    )
        throws
    {
        try rewriteToTheLayoutBeforePendingEntries(id, viewModels: names)
        let keys = JournalKeys(digest: SessionID.digest(id))
        let hash = Array(keys.hash.utf8)
        let epoch = try epoch(id)
        for name in names {
            if let entry = try bytes(["HGET", keys.hash, "vm:" + name]), entry.first == UInt8(ascii: "y") {
                let epochless = [UInt8(ascii: "z")] + entry.dropFirst()
                #expect(
                    try reply(bytes: [Array("HSET".utf8), hash, Array("vm:\(name)".utf8), epochless]) == .integer(0))
            }
            if let delta = try bytes(["GET", keys.delta(name, epoch: epoch)]), !delta.isEmpty {
                #expect(try reply(bytes: [Array("HSET".utf8), hash, Array("d:\(name)".utf8), delta]) == .integer(1))
            }
            _ = try reply(["DEL", keys.delta(name, epoch: epoch)])
            if try reply(["EXISTS", keys.replay(name, epoch: epoch)]) == .integer(1) {
                #expect(try reply(["RENAME", keys.replay(name, epoch: epoch), keys.replay(name)]) == .status("OK"))
            }
        }
        #expect(try reply(["HDEL", keys.hash, "e"]) == .integer(1))
    }

    /// How many times Redis ran command `name` (lower case) since it started (`INFO commandstats`).
    func calls(of name: String) throws -> Int {
        guard let text = try reply(["INFO", "commandstats"]).string else { return 0 }
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("cmdstat_\(name):calls=") {
            let digits = line.dropFirst("cmdstat_\(name):calls=".count).prefix { $0.isNumber }
            return Int(digits) ?? 0
        }
        return 0
    }

    /// The bytes Redis uses for every key of session `id` (`MEMORY USAGE`, the keys' values and overhead).
    func memoryUsage(ofSession id: String) throws -> Int {
        guard case .array(let keys) = try reply(["KEYS", "vmhost:{\(SessionID.digest(id))}*"]) else { return 0 }
        var total = 0
        for key in keys {
            guard let name = key.bytes,
                case .integer(let bytes) = try reply([
                    "MEMORY", "USAGE", String(decoding: name, as: UTF8.self), "SAMPLES", "0",
                ])
            else {
                continue
            }
            total += Int(bytes)
        }
        return total
    }
}

/// Two applications, `first` and `second` (their node ids), journaling to one fresh `redis-server`, both with the
/// journal available: the setup of every test of a session moving between processes.
func withTwoJournaledApps(
    _ body: (RedisServerProcess, TestApplication, TestApplication) async throws -> Void
) async throws {
    let redis = try RedisServerProcess()
    try await redis.start()
    defer { redis.stop() }
    try await withApp({
        $0.redisURL = redis.url()
        $0.nodeID = "first"
    }) { first in
        try await withApp({
            $0.redisURL = redis.url()
            $0.nodeID = "second"
        }) { second in
            #expect(try await eventually { try await first.client.get("/healthz").json?["journal"] == "ok" })
            #expect(try await eventually { try await second.client.get("/healthz").json?["journal"] == "ok" })
            try await body(redis, first, second)
        }
    }
}
