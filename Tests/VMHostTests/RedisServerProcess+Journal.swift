import Bytes
import JSON
import Redis
import Sessions
import Testing
import VMHost
import VMHostTesting
import ViewModels

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
        let list = epoch == 0 ? keys.replay(name) : keys.replay(name, epoch: epoch)
        guard case .array(let list) = try reply(["LRANGE", list, "0", "-1"]) else { return nil }
        var replay: [(version: Int, patch: [UInt8])] = []
        for element in list {
            guard let bytes = element.bytes else { throw TestClientError("a replay entry that is not a string") }
            replay.append(try JournalRecordCoding.replayEntry(bytes, compressor: compressor))
        }
        return try JournalRecordCoding.viewModel(
            name: name, entry: entry, deltaKey: value ?? [], list: replay, compressor: compressor)
    }

    /// The snapshot view model `name` of session `id` continues from, as Redis holds it: the snapshot of an
    /// earlier release's record, or the one its state and extras make (nil when Redis has no entry of it).
    func journaledSnapshot(_ id: String, _ name: String) throws -> JSONValue? {
        guard let model = try journaled(id, name) else { return nil }
        switch model.continuation {
        case .snapshot(let snapshot):
            return snapshot
        case .extras(let extras):
            switch name {
            case SearchViewModel.name: return try SearchViewModel.snapshot(state: model.state, extras: extras)
            case ProductListViewModel.name: return try ProductListViewModel.snapshot(state: model.state, extras: extras)
            case PhotoViewModel.name: return try PhotoViewModel.snapshot(state: model.state, extras: extras)
            default: throw TestClientError("no view model named \(name)")
            }
        }
    }

    /// Rewrites session `id`'s keys as an earlier release wrote them, `tag` its checkpoints' tag: each view model's
    /// checkpoint at its latest version with its whole snapshot (`x`, `y`), and its delta key with the snapshot's
    /// delta against it; for `x` (the release before extras) the delta behind the list's two newest patches,
    /// moved there from the list.
    func rewriteToAnEarlierLayout(
        _ id: String, tag: UInt8, viewModels names: [String] = ["search", "products", "photo"]
    ) throws {
        let keys = JournalKeys(digest: SessionID.digest(id))
        let epoch = try epoch(id)
        let compressor = JournalCompressor()
        for name in names {
            guard let entry = try bytes(["HGET", keys.hash, "vm:" + name]),
                entry.first == JournalRecordCoding.checkpointTag,
                let model = try journaled(id, name), let snapshot = try journaledSnapshot(id, name)
            else { continue }
            let checkpoint = JournalRecordCoding.checkpoint(
                tag: tag, version: model.version, stateBytes: model.state.serializedBytes,
                rest: snapshot.serializedBytes, compressor: compressor)
            #expect(
                try reply(bytes: [Array("HSET".utf8), Array(keys.hash.utf8), Array("vm:\(name)".utf8), checkpoint])
                    == .integer(0))
            var value = Array("\(model.version) 0 0 ".utf8) + snapshot.serializedBytes
            let list = keys.replay(name, epoch: epoch)
            if tag == UInt8(ascii: "x"), case .array(let newest) = try reply(["LRANGE", list, "-2", "-1"]),
                newest.count == 2
            {
                #expect(try reply(["LTRIM", list, "0", "-3"]) == .status("OK"))
                var pending = Array("p2 ".utf8)
                for entry in newest {
                    let bytes = entry.bytes ?? []
                    pending += Array("$\(bytes.count)\r\n".utf8) + bytes + Array("\r\n".utf8)
                }
                value = pending + value
            }
            let key = keys.delta(name, epoch: epoch)
            let ttl = try reply(["PTTL", keys.hash]).integer ?? -1
            let set = [Array("SET".utf8), Array(key.utf8), value]
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
        try rewriteToAnEarlierLayout(id, tag: UInt8(ascii: "z"), viewModels: names)
        let keys = JournalKeys(digest: SessionID.digest(id))
        let hash = Array(keys.hash.utf8)
        let epoch = try epoch(id)
        for name in names {
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
    try await withFreshRedis { redis in
        try await withJournaledApp(on: redis, { $0.nodeID = "first" }) { first in
            try await withJournaledApp(on: redis, { $0.nodeID = "second" }) { second in
                try await body(redis, first, second)
            }
        }
    }
}

/// One application on a fresh Redis whose journal refreshes expiry every quarter of `idleTimeout` (500 ms by
/// default), once its journal answers.
func withQuicklyRefreshingJournaledApp(
    idleTimeout: Duration = .seconds(2), _ body: (RedisServerProcess, TestApplication) async throws -> Void
) async throws {
    try await withFreshRedis { redis in
        try await withJournaledApp(on: redis, { $0.sessionIdleTimeout = idleTimeout }) { app in
            try await body(redis, app)
        }
    }
}

/// A fresh `redis-server` for `body`, stopped after it.
func withFreshRedis(_ body: (RedisServerProcess) async throws -> Void) async throws {
    let redis = try RedisServerProcess()
    try await redis.start()
    defer { redis.stop() }
    try await body(redis)
}

/// An application journaling to `redis` (`configure` sets the rest), once its journal answers.
func withJournaledApp(
    on redis: RedisServerProcess, _ configure: (inout VMHostConfiguration) -> Void,
    _ body: (TestApplication) async throws -> Void
) async throws {
    try await withApp({
        $0.redisURL = redis.url()
        configure(&$0)
    }) { app in
        #expect(try await eventually { try await app.client.get("/healthz").json?["journal"] == "ok" })
        try await body(app)
    }
}
