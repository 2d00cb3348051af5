/// What an event stream does about a reader too slow for its changes, as a plain state machine: the
/// surrounding ``EventStreamWriter`` does the writing.
///
/// A stream carries parts, one per view model (a single-channel stream has one; the multiplexed stream one
/// per view model of the session). A part is live while its changes are written. A refused write makes it
/// stale: its later changes are dropped, so memory stays bounded however slow the reader, until the sink
/// drains; then its snapshot is written, and once the sink takes it the part is live again. An ended
/// stream writes nothing more.
public struct SlowReaderStateMachine: Sendable {
    /// What to do with a change of a part.
    public enum ChangeAction: Sendable, Equatable {
        /// Write it.
        case write
        /// Drop it: the part waits for its snapshot, or the stream has ended.
        case drop
    }

    /// The parts in the order they are resynchronised.
    public let parts: [String]
    /// The parts waiting for a snapshot.
    public private(set) var stale: Set<String> = []
    /// Whether the stream has ended.
    public private(set) var isEnded = false

    /// A stream of `parts`, all live.
    public init(parts: [String]) {
        self.parts = parts
    }

    /// A part changed: whether to write the change.
    public func changed(_ part: String) -> ChangeAction {
        // NB: the empty set first: hashing the part's name on every delivery cost more than the rest of this.
        isEnded || (!stale.isEmpty && stale.contains(part)) ? .drop : .write
    }

    /// The sink refused a write of `part`: its changes are dropped until it is resynchronised.
    public mutating func writeRefused(_ part: String) {
        stale.insert(part)
    }

    /// The sink drained: the parts whose snapshot to write now, in order (stop at the first one refused).
    public func partsToResync() -> [String] {
        guard !isEnded, !stale.isEmpty else { return [] }
        return parts.filter { stale.contains($0) }
    }

    /// The sink took the snapshot of `part`: it is live again.
    public mutating func resynced(_ part: String) {
        stale.remove(part)
    }

    /// The stream ends; true the first time (when the sink is to be ended).
    public mutating func end() -> Bool {
        guard !isEnded else { return false }
        isEnded = true
        stale.removeAll()
        return true
    }
}
