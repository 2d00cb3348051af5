import Sessions

/// The journal's decisions about one view model's list and checkpoint, as values: how many patches the list
/// keeps, and whether a write is a checkpoint (``RedisJournal`` applies them; `JournalTests` checks them without
/// Redis).
struct JournalLogPolicy: Sendable, Equatable {
    /// A view model that logged more patches than this since its checkpoint gets a new one.
    var checkpointPatches = 64
    /// …or more bytes than this (the patches since the checkpoint and the current extras).
    var checkpointBytes = 8192
    /// A list is cut back to what it keeps (`LTRIM`) once it holds about this many bytes of patches more than
    /// that, or a quarter more entries (``listLimit(keep:)``), whichever comes first.
    /// NB: a cut costs Redis about the same whatever it removes (~7 µs: it moves what stays in the list's first
    /// node), so cutting by more at a time costs less a command; the bytes bound keeps large patches (a loaded
    /// page) from lingering past the ring (docs/performance.md, issue 26's fifteenth stop).
    var listSlackBytes = 1024

    /// Whether the write of a view model needs a checkpoint, and if not, the mark to keep.
    /// - Parameters:
    ///   - mark: the view model's mark (nil: no checkpoint known to this process).
    ///   - previous: the version its last write carried.
    ///   - latest: the version this write carries.
    ///   - newPatches: how many patches this write carries (fewer than `latest - previous` is a gap).
    ///   - newBytes: their bytes.
    ///   - extrasBytes: the bytes of the view model's extras (the delta key holds them once they changed).
    /// - Returns: nil when a checkpoint is due, else the mark with this write counted.
    func markAfterWrite(
        _ mark: JournalMark?, previous: Int, latest: Int, newPatches: Int, newBytes: Int, extrasBytes: Int
    ) -> JournalMark? {
        guard var mark, mark.version <= previous, newPatches == latest - previous else { return nil }
        mark.patches += newPatches
        mark.bytes += newBytes
        // NB: the extras replace the previous ones: only the current ones count.
        guard mark.patches <= checkpointPatches, mark.bytes + extrasBytes <= checkpointBytes else { return nil }
        return mark
    }

    /// The most entries a list that keeps `keep` may hold before a cut: a quarter more.
    func listLimit(keep: Int) -> Int { keep + keep / 4 }

    /// Whether a write that leaves a list with `length` entries, `excessBytes` bytes of patches more than the
    /// `keep` newest, cuts it back to those: past ``listLimit(keep:)``, or past ``listSlackBytes``.
    func trimsList(length: Int, keep: Int, excessBytes: Int) -> Bool {
        length > listLimit(keep: keep) || (length > keep && excessBytes > listSlackBytes)
    }
}

/// Counts the patches a view model's replay ring keeps, fed newest first: as many as fit within the ring's
/// count and byte bounds, stopping at the first that does not (what ``StateChannel`` keeps once the versions
/// are committed: a patch larger than the byte bound on its own empties the ring).
struct ReplayRingCount: Sendable {
    let capacity: Int
    let byteLimit: Int
    private(set) var count = 0
    private(set) var bytes = 0
    /// Whether a patch no longer fitted: older ones are not kept either.
    private(set) var isClosed = false

    init(capacity: Int, byteLimit: Int) {
        self.capacity = capacity
        self.byteLimit = byteLimit
    }

    /// Counts a patch of `size` bytes, older than those counted so far; false once the ring is closed.
    @discardableResult
    mutating func add(_ size: Int) -> Bool {
        guard !isClosed, count < capacity, bytes + size <= byteLimit else {
            isClosed = true
            return false
        }
        count += 1
        bytes += size
        return true
    }

    /// Counts `count` patches of `bytes` bytes in all, older than those counted so far, whose total is known to
    /// fit the byte bound (a whole committed ring: no walk over its patches).
    mutating func add(count more: Int, bytes total: Int) {
        guard !isClosed else { return }
        let room = capacity - count
        count += min(room, more)
        bytes += total
        if more >= room { isClosed = true }
    }
}
