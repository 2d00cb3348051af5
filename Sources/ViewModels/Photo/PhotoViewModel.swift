import EventLoop
import JSON
import Services

/// The photo detail screen that a search result opens.
///
/// - `open` sets the photo and loads its detail and its comments at the same time, one upstream call each.
///   Latest wins: opening while loads are in flight cancels them first, down to their transfers. Opening
///   another photo starts from empty Loadables; opening the photo already open reloads it and keeps what is
///   shown (detail and comments stay visible as the Loadables' previous values while they reload).
/// - The two loads end independently: each Loadable is `loaded` or `failed` on its own. `lastError` takes
///   every failure, and is cleared once both loads of an open have succeeded (kept while loading).
/// - `close` cancels the loads in flight and returns to the initial state.
@LoopActor
public final class PhotoViewModel {
    /// The current state. Every change is reported to ``onChange`` once.
    public private(set) var state = PhotoState() {
        didSet { if state != oldValue { onChange?(state) } }
    }

    /// Called after every change of ``state``.
    public var onChange: (@LoopActor (PhotoState) -> Void)?

    private let service: any FlickrService
    /// The two loads of an open.
    private enum Part {
        case detail, comments
    }

    /// The session's budget of upstream loads (``UpstreamBudget``); nil: unlimited.
    public var upstreamBudget: UpstreamBudget?
    /// Each part's load, replacing its own in flight.
    private var loads: [Part: LatestWins<Void>] = [.detail: LatestWins(), .comments: LatestWins()]
    private let idleWaiters = IdleWaiters()

    /// Creates the view model.
    public init(service: any FlickrService) {
        self.service = service
    }

    /// Whether a load is in flight.
    public var isBusy: Bool { loads.values.contains { $0.isRunning } }

    // MARK: Commands

    /// Opens `photoID`: loads its detail and comments together, cancelling the loads of the photo opened
    /// before (latest wins). The photo already open is reloaded, its detail and comments staying visible.
    public func open(photoID: String) {
        cancelLoads()
        let reopening = state.photoId == photoID
        var next = state
        next.photoId = photoID
        next.detail = .loading(photoID, previous: reopening ? state.detail.value : nil)
        next.comments = .loading(photoID, previous: reopening ? state.comments.value : nil)
        state = next
        startLoads(of: next)
    }

    /// Cancels the loads in flight and returns to the initial state.
    public func close() {
        cancelLoads()
        state = PhotoState()
        idleWaiters.resumeAll()
    }

    /// Waits until neither load is in flight (returns early if the calling task is cancelled).
    public func waitUntilIdle() async {
        guard isBusy else { return }
        await idleWaiters.wait()
    }

    /// Cancels the loads in flight without touching the state (the session is going away).
    public func shutdown() {
        cancelLoads()
        idleWaiters.resumeAll()
    }

    // MARK: Snapshot

    /// The state, with the photo of each load in flight.
    public func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("state")
        state.writeSnapshot(to: &json)
        json.closeObject()
    }

    /// Each load's status, failure and photo in flight.
    public func writeExtras(to json: inout JSONTextWriter) {
        state.writeExtras(to: &json)
    }

    public nonisolated static func snapshot(state: JSONValue, extras: JSONValue) throws(SnapshotError) -> JSONValue {
        [
            "state": try PhotoState.snapshot(
                json: SnapshotReader(state, path: "state"), extras: SnapshotReader(extras, path: "extras"))
        ]
    }

    /// Continues a snapshot: a load that was in flight there runs again here.
    public func restore(_ snapshot: JSONValue) throws(SnapshotError) {
        let restored = try PhotoState(snapshot: SnapshotReader(snapshot).object("state"))
        shutdown()
        state = restored
        startLoads(of: restored)
    }

    // MARK: Loading

    private func cancelLoads() {
        for part in loads.keys { _ = loads[part]?.abandon() }
    }

    /// Starts the load of each Loadable of `state` that is loading.
    private func startLoads(of state: PhotoState) {
        if let photoID = state.detail.pendingRequest {
            loads[.detail]?.start(restoring: ()) { [weak self, service] id in
                let outcome = await LoadOutcome.of { try await service.photoInfo(photoID: photoID) }
                self?.finish(id, of: .detail, \.detail, outcome)
            }
        }
        if let photoID = state.comments.pendingRequest {
            loads[.comments]?.start(restoring: ()) { [weak self, service] id in
                let outcome = await LoadOutcome.of { try await service.photoComments(photoID: photoID) }
                self?.finish(id, of: .comments, \.comments, outcome)
            }
        }
    }

    private func finish<Value>(
        _ id: LatestWins<Void>.LoadID, of part: Part,
        _ loadable: WritableKeyPath<PhotoState, Loadable<Value, String>>, _ outcome: LoadOutcome<Value>
    ) {
        // NB: a load that was cancelled or replaced must not touch the state, even if its result arrived.
        guard loads[part]?.finish(id) != nil else { return }
        var next = state
        let previous = next[keyPath: loadable].value
        switch outcome {
        case .success(let value):
            next[keyPath: loadable] = .loaded(value)
            if next.isFullyLoaded { next.lastError = nil }
        case .failure(let error):
            next[keyPath: loadable] = .failed(error, previous: previous)
            next.lastError = error
        case .cancelled:
            // A cancellation this view model did not ask for (its own are dropped above): show what was there.
            next[keyPath: loadable] = previous.map { .loaded($0) } ?? .idle
        }
        state = next
        if !isBusy { idleWaiters.resumeAll() }
    }
}
