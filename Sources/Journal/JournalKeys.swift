import Redis

/// The Redis keys of one session (see ``JournalScripts`` for their layout), named by the session's digest
/// (``SessionID/digest(_:)``), never by its id: whoever reads Redis's keys (`SCAN`, `MONITOR`, a dump) learns no
/// capability.
struct JournalKeys {
    let hash: String
    let keyOrder: String
    let keys: String

    /// The hash key is `vmhost:{ID}`; the others add a suffix to it.
    private static let prefix: StaticString = "vmhost:{"
    private static let keyOrderSuffix: StaticString = ":ko"
    private static let keysSuffix: StaticString = ":k"
    private static let replaySuffix: StaticString = ":r:"

    /// The keys of the session whose digest is `digest`.
    init(digest: String) {
        self.init(name: digest)
    }

    /// The keys of session `id` as releases before the digest named them (`vmhost:{ID}`): read once, by the
    /// takeover script, which renames them to the digest's keys (``JournalScript`` `takeOver`).
    static func legacy(id: String) -> JournalKeys { JournalKeys(name: id) }

    private init(name: String) {
        hash = "\(Self.prefix)\(name)}"
        keyOrder = "\(hash)\(Self.keyOrderSuffix)"
        keys = "\(hash)\(Self.keysSuffix)"
    }

    /// The replay list of view model `name`.
    func replay(_ name: String) -> String { "\(hash)\(Self.replaySuffix)\(name)" }

    /// The keys a write of the session whose digest is `digest` starts with (the hash, the key order and the
    /// keys), encoded as command arguments: the same keys as ``init(digest:)`` gives, encoded once per session
    /// and copied into each of its writes (``RedisCommand/append(encoded:count:)``, three arguments).
    static func encodedWriteKeys(of digest: String) -> [UInt8] {
        let keys = JournalKeys(digest: digest)
        var command = RedisCommand(capacity: 3 * (keys.hash.utf8.count + 8) + 16)
        command.append(keys.hash)
        command.append(keys.keyOrder)
        command.append(keys.keys)
        return command.encodedArguments
    }

    /// The first of the keys ``encodedWriteKeys(of:)`` gave, the hash, alone: a write without idempotency answers
    /// names only the hash and its view models' lists.
    static func encodedHash(_ encoded: [UInt8]) -> ArraySlice<UInt8> {
        // `$LENGTH\r\n` then the key and `\r\n`.
        var length = 0
        var index = 1
        while index < encoded.count, encoded[index] != UInt8(ascii: "\r") {
            length = length * 10 + Int(encoded[index] &- UInt8(ascii: "0"))
            index += 1
        }
        return encoded.prefix(min(encoded.count, index + 2 + length + 2))
    }

    /// The replay list of view model `name` of the session whose digest is `digest`, encoded as one command
    /// argument (as ``replay(_:)`` names it).
    static func encodedReplayKey(of digest: String, viewModel name: String) -> [UInt8] {
        var command = RedisCommand(capacity: 64)
        command.append(JournalKeys(digest: digest).replay(name))
        return command.encodedArguments
    }

    /// Every key, for `DEL` and `PEXPIRE`.
    func all(viewModels names: [String]) -> [String] {
        [hash, keyOrder, keys] + names.map(replay)
    }
}
