import EventLoop
import JSON

/// Where sessions outlive the process that holds them (the Redis journal). Without one, sessions live in
/// memory only, exactly as before.
///
/// The store and its sessions tell the journal what changed; the journal writes it (batched per loop turn)
/// and then commits the held versions, so no reader sees a version that is not durable. While the journal
/// is unavailable, ``holdsVersions`` is false: versions go out at once and the journal catches up later.
@LoopActor
public protocol SessionJournal: AnyObject {
    /// Whether new versions wait for the journal.
    var holdsVersions: Bool { get }
    /// `session` has held versions or new idempotency answers to write.
    func sessionChanged(_ session: Session)
    /// `session` was created here.
    func sessionCreated(_ session: Session)
    /// `session` was deleted or expired: it is gone everywhere.
    func sessionRemoved(_ session: Session)
    /// Loads a session this process does not hold, taking it over.
    func load(_ id: String) async -> JournalLoad
    /// Gives up `session`, idle for `idle`, so it lives on in the journal only (hibernation): when it is durable
    /// and the journal reachable, releases its ownership (only if this process still holds it) and returns true,
    /// calling `completion` with the outcome later (never before returning); returns false, and never calls
    /// `completion`, when nothing was sent (the session is not durable yet, or the journal is unavailable).
    func hibernate(
        _ session: Session, idleFor idle: Duration, then completion: @escaping @LoopActor (HibernationOutcome) -> Void
    ) -> Bool
}

extension SessionJournal {
    /// A journal that cannot hibernate keeps every session resident.
    public func hibernate(
        _ session: Session, idleFor idle: Duration, then completion: @escaping @LoopActor (HibernationOutcome) -> Void
    ) -> Bool {
        false
    }
}

/// What the journal found for a session id.
public enum JournalLoad: Sendable {
    /// The session, now owned by this process.
    case found(SessionRecord)
    /// No such session (never existed, deleted, expired, or unreadable).
    case notFound
    /// A live process holds it (a request that reached the wrong node): try again shortly.
    case heldElsewhere
    /// The journal cannot answer now.
    case unavailable
}

/// A session as the journal keeps it.
public struct SessionRecord: Sendable {
    /// One view model's journal entry.
    public struct ViewModel: Sendable {
        /// The version of ``state``.
        public var version: Int
        /// The API state at that version, with `version`.
        public var state: JSONValue
        /// What the view model continues from besides ``state``.
        public var continuation: Continuation
        /// The newest patches, oldest first, ending at ``version``.
        public var replay: [(version: Int, patch: [UInt8])]

        /// What a view model continues from: its extras with its state (this release's records), or its whole
        /// snapshot (earlier releases').
        public enum Continuation: Sendable, Equatable {
            /// The view model's extras (``HostedViewModel/writeExtras(to:)``), which make its snapshot with
            /// ``ViewModel/state`` (``HostedViewModel/snapshot(state:extras:)``).
            case extras(JSONValue)
            /// The view model's snapshot (``HostedViewModel/writeSnapshot(to:)``).
            case snapshot(JSONValue)
        }

        /// Creates an entry.
        public init(
            version: Int, state: JSONValue, continuation: Continuation, replay: [(version: Int, patch: [UInt8])]
        ) {
            self.version = version
            self.state = state
            self.continuation = continuation
            self.replay = replay
        }
    }

    /// The session id.
    public var id: String
    /// View models by name.
    public var viewModels: [String: ViewModel]
    /// Idempotency keys with their answers, oldest first.
    public var idempotency: [(key: String, fingerprint: [UInt8], answer: IdempotentAnswer)]
    /// The session's ``Session/owner``; nil for a session without one (and for records written before owners).
    public var owner: String?
    /// The journal's epoch of the session (``Session/journalEpoch``).
    public var journalEpoch: Int

    /// Creates a record.
    public init(
        id: String, viewModels: [String: ViewModel],
        idempotency: [(key: String, fingerprint: [UInt8], answer: IdempotentAnswer)], owner: String? = nil,
        journalEpoch: Int = 1
    ) {
        self.id = id
        self.owner = owner
        self.journalEpoch = journalEpoch
        self.viewModels = viewModels
        self.idempotency = idempotency
    }
}
