import EventLoop

/// A command's answer as it was first sent, kept to answer a repeat of its `Idempotency-Key`.
public struct IdempotentAnswer: Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The headers, in order, as (name, value).
    public var headers: [Header]
    /// The body bytes.
    public var body: [UInt8]

    /// One header.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        /// Creates a header.
        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates an answer.
    public init(status: Int, headers: [Header], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The last ``capacity`` `Idempotency-Key`s of one session, each with what its command was and what it
/// answered, and no more of them than ``maxBytes`` of answers: past either bound the oldest keys are forgotten
/// first (the newest answer is always kept, whatever its size, so a retry of the last command is answered).
///
/// A key names one command: the same key with another command or body is refused; a repeat while the first
/// is still running waits for its answer, so a command never runs twice.
@LoopActor
public final class IdempotencyKeys {
    /// How a key was looked up.
    public enum Lookup {
        /// First use: run the command, then ``finish(_:answer:)``.
        case new
        /// A repeat: answer this again.
        case answered(IdempotentAnswer)
        /// A repeat of a command still running: wait for ``answer(for:)``.
        case running
        /// The key was used for another command or body (`422 idempotency_key_reused`).
        case reused
    }

    private struct Entry {
        var fingerprint: [UInt8]
        var answer: IdempotentAnswer?
        var waiters: [CheckedContinuation<IdempotentAnswer?, Never>] = []
        /// What the entry holds, in bytes (``IdempotencyKeys/size(of:_:)``).
        var size = 0
    }

    /// The default of ``maxBytes``: 64 KiB (`idempotencyBytesPerSession`).
    public nonisolated static let defaultMaxBytes = 64 * 1024

    /// Keys remembered per session.
    public let capacity: Int
    /// The bytes of keys, fingerprints and answers (bodies and headers) remembered per session.
    public var maxBytes = IdempotencyKeys.defaultMaxBytes {
        didSet { evict() }
    }
    /// The bytes remembered now.
    public private(set) var bytes = 0
    private var entries: [String: Entry] = [:]
    /// Keys oldest first (a ring would save a copy per eviction; 256 short strings do not need it).
    private var order: [String] = []

    /// Called with each key once its answer is known (the journal keeps answers across processes).
    public var onAnswer: (@LoopActor (_ key: String, _ fingerprint: [UInt8], _ answer: IdempotentAnswer) -> Void)?

    /// Creates an empty set of keys.
    public init(capacity: Int = 256) {
        self.capacity = capacity
    }

    /// Number of keys remembered.
    public var count: Int { entries.count }

    /// Looks `key` up for a command whose identity is `fingerprint` (its path and body), registering it when new.
    public func begin(_ key: String, fingerprint: [UInt8]) -> Lookup {
        if let entry = entries[key] {
            guard entry.fingerprint == fingerprint else { return .reused }
            return entry.answer.map { .answered($0) } ?? .running
        }
        insert(key, Entry(fingerprint: fingerprint, answer: nil, size: Self.size(of: key, fingerprint)))
        return .new
    }

    /// Records the answer of the command started with ``begin(_:fingerprint:)`` and releases its waiters.
    public func finish(_ key: String, answer: IdempotentAnswer) {
        guard var entry = entries[key] else { return }
        let waiters = entry.waiters
        entry.waiters = []
        entry.answer = answer
        let size = Self.size(of: key, entry.fingerprint, answer)
        bytes += size - entry.size
        entry.size = size
        entries[key] = entry
        for waiter in waiters { waiter.resume(returning: answer) }
        onAnswer?(key, entry.fingerprint, answer)
        evict()
    }

    /// Waits for the answer of a running command (nil if the key was forgotten or the session closed).
    public func answer(for key: String) async -> IdempotentAnswer? {
        guard let entry = entries[key] else { return nil }
        if let answer = entry.answer { return answer }
        return await withCheckedContinuation { continuation in
            entries[key]?.waiters.append(continuation)
        }
    }

    /// Restores a key with its answer (from the journal), as the newest.
    public func restore(_ key: String, fingerprint: [UInt8], answer: IdempotentAnswer) {
        insert(key, Entry(fingerprint: fingerprint, answer: answer, size: Self.size(of: key, fingerprint, answer)))
    }

    /// Every key with an answer, oldest first (for the journal).
    public var answered: [(key: String, fingerprint: [UInt8], answer: IdempotentAnswer)] {
        order.compactMap { key in
            guard let entry = entries[key], let answer = entry.answer else { return nil }
            return (key, entry.fingerprint, answer)
        }
    }

    /// Forgets every key and releases waiters with nil (the session is closing).
    public func removeAll() {
        let current = entries
        entries.removeAll()
        order.removeAll()
        bytes = 0
        for entry in current.values {
            for waiter in entry.waiters { waiter.resume(returning: nil) }
        }
    }

    private func insert(_ key: String, _ entry: Entry) {
        if let previous = entries.updateValue(entry, forKey: key) {
            bytes -= previous.size
            if let index = order.firstIndex(of: key) {
                order.remove(at: index)
                order.append(key)
            }
        } else {
            order.append(key)
        }
        bytes += entry.size
        evict()
    }

    /// Forgets the oldest keys while more than ``capacity`` are kept, or more than ``maxBytes`` (the newest
    /// stays).
    private func evict() {
        while order.count > capacity || (bytes > maxBytes && order.count > 1) {
            let oldest = order.removeFirst()
            if let evicted = entries.removeValue(forKey: oldest) {
                bytes -= evicted.size
                for waiter in evicted.waiters { waiter.resume(returning: nil) }
            }
        }
    }

    /// What an entry holds: its key, fingerprint and answer (body, header names and values), in bytes.
    static func size(of key: String, _ fingerprint: [UInt8], _ answer: IdempotentAnswer? = nil) -> Int {
        var size = key.utf8.count + fingerprint.count
        guard let answer else { return size }
        size += answer.body.count
        for header in answer.headers { size += header.name.utf8.count + header.value.utf8.count }
        return size
    }
}
