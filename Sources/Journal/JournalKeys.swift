/// The Redis keys of one session (see ``JournalScripts`` for their layout).
struct JournalKeys {
    let hash: String
    let keyOrder: String
    let keys: String

    init(_ id: String) {
        hash = "vmhost:{\(id)}"
        keyOrder = hash + ":ko"
        keys = hash + ":k"
    }

    /// The replay list of view model `name`.
    func replay(_ name: String) -> String { hash + ":r:" + name }

    /// Every key, for `DEL` and `PEXPIRE`.
    func all(viewModels names: [String]) -> [String] {
        [hash, keyOrder, keys] + names.map(replay)
    }
}
