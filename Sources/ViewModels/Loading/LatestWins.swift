import EventLoop

/// One load at a time, where a newer load replaces the one in flight ("latest wins"): the load's task, an id
/// that tells its result from a replaced load's, and the value to put back if it is abandoned.
///
/// A value inside its view model, which starts, abandons and finishes loads; the view model's completion asks
/// ``finish(_:)`` first, so the result of a load that was abandoned or replaced never touches the state, even
/// if it arrived.
@LoopActor
struct LatestWins<Restore> {
    /// Which load a result belongs to.
    struct LoadID: Equatable, Sendable {
        fileprivate let value: Int
    }

    private var current: (task: Task<Void, Never>, id: LoadID, restore: Restore)?
    private var nextID = 0

    /// An idle loader.
    init() {}

    /// Whether a load is in flight.
    var isRunning: Bool { current != nil }

    /// Starts `load` (handed its id, for ``finish(_:)``), cancelling the load in flight first, down to its transfer.
    /// - Parameter restore: what ``abandon()`` gives back while this load runs.
    mutating func start(restoring restore: Restore, _ load: sending @escaping @LoopActor (LoadID) async -> Void) {
        current?.task.cancel()
        let id = LoadID(value: nextID)
        nextID += 1
        current = (Task { await load(id) }, id, restore)
    }

    /// Cancels the load in flight; returns what it restores, or nil when nothing was loading.
    mutating func abandon() -> Restore? {
        guard let current else { return nil }
        current.task.cancel()
        self.current = nil
        return current.restore
    }

    /// The load `id` ended: what it restores if it is the current load (which is then over), nil if it was
    /// abandoned or replaced (its result is to be dropped).
    mutating func finish(_ id: LoadID) -> Restore? {
        guard let current, current.id == id else { return nil }
        self.current = nil
        return current.restore
    }
}
