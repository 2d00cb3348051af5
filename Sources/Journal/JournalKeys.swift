import Redis

/// The Redis keys of one session (see ``JournalScripts`` for their layout), named by the session's digest
/// (``SessionID/digest(_:)``), never by its id: whoever reads Redis's keys (`SCAN`, `MONITOR`, a dump) learns no
/// capability.
struct JournalKeys {
    let hash: String
    let keyOrder: String
    let keys: String

    /// The hash key is `vmhost:{ID}`; the others add a suffix to it.
    private static let prefix = "vmhost:{"
    private static let keyOrderSuffix = ":ko"
    private static let keysSuffix = ":k"
    private static let replaySuffix = ":r:"

    /// The keys of the session whose digest is `digest`.
    init(digest: String) {
        self.init(name: digest)
    }

    /// The keys of session `id` as releases before the digest named them (`vmhost:{ID}`): read once, by the
    /// takeover script, which renames them to the digest's keys (``JournalScript`` `takeOver`).
    static func legacy(id: String) -> JournalKeys { JournalKeys(name: id) }

    private init(name: String) {
        hash = Self.prefix + name + "}"
        keyOrder = hash + Self.keyOrderSuffix
        keys = hash + Self.keysSuffix
    }

    /// The replay list of view model `name`.
    func replay(_ name: String) -> String { hash + Self.replaySuffix + name }

    /// Appends the keys of a write of the session whose digest is `id` to `command`: the hash, the key order, the
    /// keys, then the replay list of each of `viewModels`; the same keys as ``init(digest:)`` and ``replay(_:)``
    /// give, without their strings (a write runs for every command).
    static func appendWriteKeys(of id: String, viewModels: [String], to command: inout RedisCommand) {
        let hashLength = prefix.utf8.count + id.utf8.count + 1
        func appendKey(_ suffix: String, _ name: String = "") {
            command.appendArgument(length: hashLength + suffix.utf8.count + name.utf8.count) { bytes in
                bytes.append(utf8: prefix)
                bytes.append(utf8: id)
                bytes.append(UInt8(ascii: "}"))
                bytes.append(utf8: suffix)
                bytes.append(utf8: name)
            }
        }
        appendKey("")
        appendKey(keyOrderSuffix)
        appendKey(keysSuffix)
        for name in viewModels { appendKey(replaySuffix, name) }
    }

    /// Every key, for `DEL` and `PEXPIRE`.
    func all(viewModels names: [String]) -> [String] {
        [hash, keyOrder, keys] + names.map(replay)
    }
}
