import Redis

/// The Redis keys of one session (see ``JournalScripts`` for their layout).
struct JournalKeys {
    let hash: String
    let keyOrder: String
    let keys: String

    /// The hash key is `vmhost:{ID}`; the others add a suffix to it.
    private static let prefix = "vmhost:{"
    private static let keyOrderSuffix = ":ko"
    private static let keysSuffix = ":k"
    private static let replaySuffix = ":r:"

    init(_ id: String) {
        hash = Self.prefix + id + "}"
        keyOrder = hash + Self.keyOrderSuffix
        keys = hash + Self.keysSuffix
    }

    /// The replay list of view model `name`.
    func replay(_ name: String) -> String { hash + Self.replaySuffix + name }

    /// Appends the keys of a write of session `id` to `command`: the hash, the key order, the keys, then the
    /// replay list of each of `viewModels`; the same keys as ``init(_:)`` and ``replay(_:)`` give, without their
    /// strings (a write runs for every command).
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
