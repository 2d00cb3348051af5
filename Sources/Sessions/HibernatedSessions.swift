/// The sessions this process hibernated that have neither woken here nor reached their idle timeout: a 64-bit
/// fingerprint of each digest with its expiry and its subject's fingerprint, about 24 bytes a session (no id, no
/// state).
///
/// It tells a takeover that is a wake-up (counted, its latency measured) from one that is a failover, gives
/// `vmhost_sessions_hibernated`, and keeps a subject's hibernated sessions counted against
/// `maxSessionsPerSubject` (a session that leaves memory is still the subject's). NB: an estimate: a session
/// hibernated here and woken on another node stays counted here until its idle timeout would have passed.
struct HibernatedSessions {
    private struct Entry {
        /// The second (since ``HibernatedSessions/epoch``) the journal's keys expire.
        var deadline: UInt32
        /// The fingerprint of the session's subject (``Session/owner``); 0 for none.
        var subject: UInt64
    }

    private var entries: [UInt64: Entry] = [:]
    /// Each subject with hibernated sessions here, by fingerprint, with their number.
    private var subjects: [UInt64: (subject: String, count: Int)] = [:]
    private let epoch: ContinuousClock.Instant
    /// The fingerprints inserted with each deadline (a key may since have woken, or hibernated again with a later
    /// deadline: a purge checks its entry): a purge visits only the sessions due, never the whole table.
    /// NB: 8 bytes a session more than the entry, against a walk of every entry (tens of milliseconds on the loop
    /// at a million) each time a deadline passes.
    private var due: [UInt32: [UInt64]] = [:]
    /// The earliest deadline held (a purge before it finds nothing).
    private var earliest = UInt32.max

    init(epoch: ContinuousClock.Instant) {
        self.epoch = epoch
    }

    /// How many are held.
    var count: Int { entries.count }

    /// How many of them belong to `subject`.
    func count(ownedBy subject: String) -> Int {
        subjects[Self.fingerprint(subject) | 1]?.count ?? 0
    }

    /// Remembers the session named by `digest`, belonging to `subject`, hibernated until `deadline`.
    mutating func insert(_ digest: String, subject: String?, until deadline: ContinuousClock.Instant) {
        let second = seconds(deadline)
        var key: UInt64 = 0
        if let subject {
            // NB: never 0, which stands for no subject.
            key = Self.fingerprint(subject) | 1
            subjects[key, default: (subject, 0)].count += 1
        }
        let fingerprint = Self.fingerprint(digest)
        if let previous = entries.updateValue(Entry(deadline: second, subject: key), forKey: fingerprint) {
            uncount(previous)
        }
        due[second, default: []].append(fingerprint)
        earliest = min(earliest, second)
    }

    /// Forgets the session named by `digest`; whether it was held.
    mutating func remove(_ digest: String) -> Bool {
        guard let entry = entries.removeValue(forKey: Self.fingerprint(digest)) else { return false }
        uncount(entry)
        return true
    }

    /// Forgets the sessions whose deadline passed (Redis expired them).
    mutating func purge(now: ContinuousClock.Instant) {
        let current = seconds(now)
        guard current >= earliest else { return }
        // NB: the deadlines held are at most the idle timeout's seconds apart: a walk over them, not the sessions.
        let passed = due.keys.filter { $0 <= current }
        for deadline in passed {
            for key in due.removeValue(forKey: deadline) ?? [] {
                // NB: only an entry still due: one woken since is gone, one hibernated again is due later.
                guard let entry = entries[key], entry.deadline <= current else { continue }
                entries[key] = nil
                uncount(entry)
            }
        }
        earliest = due.keys.min() ?? .max
        if entries.isEmpty { due.removeAll() }
    }

    private mutating func uncount(_ entry: Entry) {
        guard entry.subject != 0, let held = subjects[entry.subject] else { return }
        subjects[entry.subject] = held.count > 1 ? (held.subject, held.count - 1) : nil
    }

    private func seconds(_ instant: ContinuousClock.Instant) -> UInt32 {
        let elapsed = instant - epoch
        return UInt32(clamping: max(0, elapsed.components.seconds + 1))
    }

    /// FNV-1a over the characters (a digest is itself the start of a SHA-256: any 64 bits of it would do).
    static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
