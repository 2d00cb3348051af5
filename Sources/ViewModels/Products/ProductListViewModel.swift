import EventLoop
import JSON
import Services

/// The paged product list with pull-to-refresh, load-more and cancel.
///
/// - `refresh` loads page 1 and replaces the items on success; items stay visible meanwhile; it cancels a
///   load-more in flight (and restarts a refresh in flight: latest wins).
/// - `loadMore` appends the next page; refused unless a page is loaded, `hasMore`, and nothing is loading.
/// - `cancel` aborts the load (the upstream transfer too) and restores the list as it was, with no error.
/// - Failures of every kind land in `lastError`; the items shown are never lost.
@LoopActor
public final class ProductListViewModel {
    /// The current state. Every change is reported to ``onChange`` once.
    public private(set) var state = ProductListState() {
        didSet { if state != oldValue { onChange?(state) } }
    }

    /// Called after every change of ``state``.
    public var onChange: (@LoopActor (ProductListState) -> Void)?

    private let service: any ProductService
    /// The session's budget of upstream loads (``UpstreamBudget``); nil: unlimited.
    public var upstreamBudget: UpstreamBudget?
    private var load = LatestWins<Loadable<ProductList, PageRequest>>()
    private let idleWaiters = IdleWaiters()

    /// Creates the view model.
    public init(service: any ProductService) {
        self.service = service
    }

    /// Starts loading page 1 (cancelling whatever is in flight).
    public func refresh() {
        let restore = abandonInFlight()
        start(.refresh, restore: restore, from: restore)
    }

    /// Starts loading the next page.
    /// - Throws: ``CommandDisabled`` unless a page is loaded, `hasMore`, and nothing is loading.
    public func loadMore() throws(CommandDisabled) {
        guard !load.isRunning else { throw CommandDisabled("a load is already in progress") }
        guard let list = state.list.value else { throw CommandDisabled("no page is loaded yet; refresh first") }
        guard list.hasMore else { throw CommandDisabled("there are no more pages") }
        start(.nextPage(list.page + 1), restore: state.list, from: state.list)
    }

    /// Aborts the load in flight; the list returns to what it was, with no new error.
    public func cancel() {
        let restore = abandonInFlight()
        state.list = restore
        resumeIdleWaiters()
    }

    /// Whether a load is in flight.
    public var isBusy: Bool { load.isRunning }

    /// Waits until no load is in flight (returns at once when idle).
    public func waitUntilIdle() async {
        guard load.isRunning else { return }
        await idleWaiters.wait()
    }

    /// Cancels the load in flight without touching the state (the session is going away).
    public func shutdown() {
        _ = abandonInFlight()
        resumeIdleWaiters()
    }

    // MARK: Snapshot

    /// The state, with the request of a load in flight.
    public func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("state")
        state.writeSnapshot(to: &json)
        json.closeObject()
    }

    /// The list's status, failure and request, and whether there is a list.
    public func writeExtras(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("list")
        state.writeListExtras(to: &json)
        json.closeObject()
    }

    public nonisolated static func snapshot(state: JSONValue, extras: JSONValue) throws(SnapshotError) -> JSONValue {
        [
            "state": try ProductListState.snapshot(
                json: SnapshotReader(state, path: "state"),
                listExtras: SnapshotReader(extras, path: "extras").value("list"))
        ]
    }

    /// Continues a snapshot: a load that was in flight runs again, from the list it was started on.
    public func restore(_ snapshot: JSONValue) throws(SnapshotError) {
        var restored = try ProductListState(snapshot: SnapshotReader(snapshot).object("state"))
        shutdown()
        let interrupted = restored.list.pendingRequest
        if interrupted != nil { restored.list = restored.list.value.map { .loaded($0) } ?? .idle }
        state = restored
        if let interrupted { start(interrupted, restore: state.list, from: state.list) }
    }

    // MARK: Private

    /// Cancels the task in flight and returns the list value to restore (the one before that load).
    private func abandonInFlight() -> Loadable<ProductList, PageRequest> {
        load.abandon() ?? state.list
    }

    private func start(
        _ request: PageRequest, restore: Loadable<ProductList, PageRequest>,
        from current: Loadable<ProductList, PageRequest>
    ) {
        let page: Int
        switch request {
        case .refresh: page = 1
        case .nextPage(let next): page = next
        }
        load.start(restoring: restore) { [weak self, service] id in
            let outcome = await LoadOutcome.of { try await service.fetchPage(page) }
            self?.finish(id, request: request, outcome: outcome)
        }
        state.list = .loading(request, previous: current.value)
    }

    private func finish(
        _ id: LatestWins<Loadable<ProductList, PageRequest>>.LoadID, request: PageRequest,
        outcome: LoadOutcome<ProductPage>
    ) {
        guard let restore = load.finish(id) else { return }
        let previous = state.list.value
        var next = state
        switch outcome {
        case .success(let page):
            switch request {
            case .refresh:
                next.list = .loaded(page)
            case .nextPage:
                let items = (previous?.items ?? []) + page.items
                next.list = .loaded(ProductList(items: items, page: page.page, hasMore: page.hasMore))
            }
            next.lastError = nil
        case .failure(let error):
            next.list = .failed(error, previous: previous)
            next.lastError = error
        case .cancelled:
            next.list = restore
        }
        state = next
        resumeIdleWaiters()
    }

    private func resumeIdleWaiters() {
        guard !load.isRunning else { return }
        idleWaiters.resumeAll()
    }
}
