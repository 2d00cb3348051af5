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
    private static let deltaSuffix: StaticString = ":d:"

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

    /// The replay list of view model `name` as earlier releases named it (epoch 0; the takeover script derives
    /// the epoch's names from it).
    func replay(_ name: String) -> String { "\(hash)\(Self.replaySuffix)\(name)" }

    /// The replay list of view model `name` under `epoch` (at least 1).
    func replay(_ name: String, epoch: Int) -> String { "\(hash)\(Self.replaySuffix)\(name):\(epoch)" }

    /// The snapshot delta of view model `name` under `epoch` (at least 1).
    func delta(_ name: String, epoch: Int) -> String { "\(hash)\(Self.deltaSuffix)\(name):\(epoch)" }

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

    /// The first of encoded arguments (``RedisCommand/encodedArguments``) and the rest: the hash alone of what
    /// ``encodedWriteKeys(of:)`` gave (a write without idempotency answers names only the hash and its view
    /// models' keys), or the replay list and the delta of what ``encodedViewModelKeys(of:viewModel:epoch:)`` gave.
    static func splitFirst(_ encoded: [UInt8]) -> (first: ArraySlice<UInt8>, rest: ArraySlice<UInt8>) {
        // `$LENGTH\r\n` then the key and `\r\n`.
        var length = 0
        var index = 1
        while index < encoded.count, encoded[index] != UInt8(ascii: "\r") {
            length = length * 10 + Int(encoded[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let end = min(encoded.count, index + 2 + length + 2)
        return (encoded[..<end], encoded[end...])
    }

    /// The replay list and the delta of view model `name` of the session whose digest is `digest`, under `epoch`,
    /// encoded as two command arguments (as ``replay(_:epoch:)`` and ``delta(_:epoch:)`` name them).
    static func encodedViewModelKeys(of digest: String, viewModel name: String, epoch: Int) -> [UInt8] {
        let keys = JournalKeys(digest: digest)
        var command = RedisCommand(capacity: 128)
        command.append(keys.replay(name, epoch: epoch))
        command.append(keys.delta(name, epoch: epoch))
        return command.encodedArguments
    }

    /// Every key under `epoch`, for `DEL` and `PEXPIRE`.
    func all(viewModels names: [String], epoch: Int) -> [String] {
        [hash, keyOrder, keys] + names.map { replay($0, epoch: epoch) } + names.map { delta($0, epoch: epoch) }
    }
}
