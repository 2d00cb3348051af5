/// The sessions this process hibernated that have neither woken here nor reached their idle timeout: a 64-bit
/// fingerprint of each digest with its expiry, about 20 bytes a session (no id, no state).
///
/// It tells a takeover that is a wake-up (counted, its latency measured) from one that is a failover, and gives
/// `vmhost_sessions_hibernated`. NB: an estimate: a session hibernated here and woken on another node stays
/// counted here until its idle timeout would have passed.
struct HibernatedSessions {
    /// Fingerprint → the second (since ``epoch``) the journal's keys expire.
    private var deadlines: [UInt64: UInt32] = [:]
    private let epoch: ContinuousClock.Instant
    /// The earliest deadline held (a purge before it finds nothing).
    private var earliest = UInt32.max

    init(epoch: ContinuousClock.Instant) {
        self.epoch = epoch
    }

    /// How many are held.
    var count: Int { deadlines.count }

    /// Remembers the session named by `digest`, hibernated until `deadline`.
    mutating func insert(_ digest: String, until deadline: ContinuousClock.Instant) {
        let second = seconds(deadline)
        deadlines[Self.fingerprint(digest)] = second
        earliest = min(earliest, second)
    }

    /// Forgets the session named by `digest`; whether it was held.
    mutating func remove(_ digest: String) -> Bool {
        deadlines.removeValue(forKey: Self.fingerprint(digest)) != nil
    }

    /// Forgets the sessions whose deadline passed (Redis expired them).
    mutating func purge(now: ContinuousClock.Instant) {
        let current = seconds(now)
        guard current >= earliest else { return }
        deadlines = deadlines.filter { $0.value > current }
        earliest = deadlines.values.min() ?? .max
    }

    private func seconds(_ instant: ContinuousClock.Instant) -> UInt32 {
        let elapsed = instant - epoch
        return UInt32(clamping: max(0, elapsed.components.seconds + 1))
    }

    /// FNV-1a over the digest's characters (themselves the start of a SHA-256: any 64 bits of it would do).
    static func fingerprint(_ digest: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in digest.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
