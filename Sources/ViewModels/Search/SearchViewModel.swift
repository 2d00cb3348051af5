import EventLoop
import JSON
import Services

/// The Flickr photo search screen.
///
/// - `setText` updates the text; with `autoSearch` a search runs 300 ms after the last change (debounce)
///   when `canSearch`.
/// - `execute` starts page 1; latest wins: a search in flight is cancelled first, down to its transfer.
/// - `loadMore` appends the next page; `cancel` restores the results as they were before that search.
/// - `visible` loads favorites and comments counts of the photos on screen, a few at a time, at most once
///   per photo of the results shown (a load that failed is not tried again, and one in flight goes on when its
///   photo scrolls away: its upstream calls are made anyway, and a scrolling loop would otherwise start them
///   again and again). Photos still queued when they scroll away are not loaded.
/// - A debounced search that finds the session's ``UpstreamBudget`` empty does not run: `lastError` says so.
@LoopActor
public final class SearchViewModel {
    /// How long typing must pause before an automatic search.
    public static let debounceInterval = Duration.milliseconds(300)
    /// Photo metadata loads running at once.
    public static let metadataConcurrency = 4

    /// The current state. Every change is reported to ``onChange`` once.
    public private(set) var state = SearchState() {
        didSet {
            if !state.hasSameResults(as: oldValue) { revisionOfExtras &+= 1 }
            if state != oldValue { onChange?(state) }
        }
    }

    /// Changes with the extras' parts: the results (their status, failure and request) and whether an automatic
    /// search is pending.
    public var extrasRevision: Int? { revisionOfExtras }
    private var revisionOfExtras = 0

    /// Called after every change of ``state``.
    public var onChange: (@LoopActor (SearchState) -> Void)?

    private let service: any FlickrService
    /// The session's budget of upstream loads (``UpstreamBudget``); nil: unlimited.
    public var upstreamBudget: UpstreamBudget?
    private let clock: LoopClock
    private var search = LatestWins<Loadable<SearchResults, SearchRequest>>()
    private var debounce: Task<Void, Never>? {
        didSet { if (debounce == nil) != (oldValue == nil) { revisionOfExtras &+= 1 } }
    }
    private let idleWaiters = IdleWaiters()
    private let metadataWaiters = IdleWaiters()

    /// Photos of the results whose metadata load started (loaded, failed or in flight).
    private var metadataStarted: Set<String> = []
    private var metadataQueue: [String] = []
    /// The metadata loads in flight by photo, each with the number that tells it from an earlier load of the same
    /// photo (cancelled by a new search, and perhaps finishing after this one started).
    private var metadataInFlight: [String: (load: Int, task: Task<Void, Never>)] = [:]
    private var nextMetadataLoad = 0

    /// Creates the view model.
    /// - Parameters:
    ///   - service: the Flickr API.
    ///   - clock: the clock of the debounce (a test clock in tests).
    public init(service: any FlickrService, clock: LoopClock = LoopClock()) {
        self.service = service
        self.clock = clock
    }

    /// Whether a search is in flight or a debounced search is pending.
    public var isBusy: Bool { search.isRunning || debounce != nil }

    // MARK: Commands

    /// Sets the search text. With `autoSearch`, schedules a search after the debounce interval; any earlier
    /// pending automatic search is dropped either way.
    public func setText(_ text: String, autoSearch: Bool = false) {
        dropPendingAutomaticSearch()
        state.searchText = text
        guard autoSearch else { return }
        debounce = Task { [weak self, clock] in
            do {
                try await clock.sleep(for: Self.debounceInterval)
            } catch {
                return
            }
            // NB: a command can cancel the debounce after its sleep has ended but before this task is back on
            // the loop (the wake-up is a job in the queue, or on its way back from another executor): the sleep
            // did not throw, and the search the command started must not be replaced by this one.
            guard !Task.isCancelled else { return }
            self?.debounceFired()
        }
    }

    /// Starts a new search for the current text (or `text`, which replaces it first); a pending automatic
    /// search is dropped (this search replaces it).
    /// - Throws: ``CommandDisabled`` unless `canSearch`.
    public func execute(text: String? = nil) throws(CommandDisabled) {
        if let text {
            dropPendingAutomaticSearch()
            state.searchText = text
        }
        guard state.canSearch else {
            throw CommandDisabled("search needs more than 3 characters (trimmed); the text is '\(state.trimmedText)'")
        }
        dropPendingAutomaticSearch()
        startSearch(SearchRequest(text: state.trimmedText, page: 1))
    }

    /// Loads the next page of the current results.
    /// - Throws: ``CommandDisabled`` unless results are shown, more pages exist and nothing is loading.
    public func loadMore() throws(CommandDisabled) {
        guard !search.isRunning else { throw CommandDisabled("a search is in progress") }
        guard let value = state.results.value else { throw CommandDisabled("there are no results to extend") }
        guard value.page < value.pages else { throw CommandDisabled("all \(value.pages) pages are loaded") }
        startSearch(SearchRequest(text: value.searchString, page: value.page + 1))
    }

    /// Cancels the search in flight; results return to what they were before it, with no error.
    public func cancel() {
        dropPendingAutomaticSearch()
        guard let restore = search.abandon() else { return }
        state.results = restore
        idleWaiters.resumeAll()
    }

    /// Loads favorites and comments counts for the photos on screen that are in the results; a photo's load
    /// starts at most once for the results shown, and queued photos no longer listed are dropped.
    public func visible(_ photoIDs: [String]) {
        let known = Set(state.results.value?.photos.map(\.id) ?? [])
        var seen: Set<String> = []
        metadataQueue = photoIDs.filter { id in
            known.contains(id) && !metadataStarted.contains(id) && seen.insert(id).inserted
        }
        pumpMetadata()
        if metadataInFlight.isEmpty && metadataQueue.isEmpty { metadataWaiters.resumeAll() }
    }

    /// Waits until no search is in flight or pending (returns early if the calling task is cancelled).
    public func waitUntilIdle() async {
        guard isBusy else { return }
        await idleWaiters.wait()
    }

    /// Waits until no photo metadata is loading or queued (returns early if the calling task is cancelled).
    public func waitUntilMetadataLoaded() async {
        guard !metadataInFlight.isEmpty || !metadataQueue.isEmpty else { return }
        await metadataWaiters.wait()
    }

    /// Cancels everything (the session is going away).
    public func shutdown() {
        cancel()
        resetMetadata()
    }

    // MARK: Snapshot

    /// The state with the request of a search in flight, and whether an automatic search is pending.
    public func writeSnapshot(to json: inout JSONTextWriter) {
        writeWithDebounce("state", to: &json) { state.writeSnapshot(to: &$0) }
    }

    /// The results' status, failure and request, and whether an automatic search is pending.
    public func writeExtras(to json: inout JSONTextWriter) {
        writeWithDebounce("results", to: &json) { state.writeResultsExtras(to: &$0) }
    }

    /// The object both forms share: `part` written by `writePart`, then `debouncePending`.
    private func writeWithDebounce(
        _ part: StaticString, to json: inout JSONTextWriter, _ writePart: (inout JSONTextWriter) -> Void
    ) {
        json.openObject()
        json.key(part)
        writePart(&json)
        json.key("debouncePending")
        json.bool(debounce != nil)
        json.closeObject()
    }

    public nonisolated static func snapshot(state: JSONValue, extras: JSONValue) throws(SnapshotError) -> JSONValue {
        let extras = try SnapshotReader(extras, path: "extras")
        return [
            "state": try SearchState.snapshot(
                json: SnapshotReader(state, path: "state"), resultsExtras: extras.value("results")),
            "debouncePending": .bool(try extras.bool("debouncePending")),
        ]
    }

    /// Continues a snapshot: a search that was in flight runs again (from the results it was started on),
    /// a pending automatic search is scheduled again, and metadata shown counts as loaded.
    public func restore(_ snapshot: JSONValue) throws(SnapshotError) {
        let reader = try SnapshotReader(snapshot)
        var restored = try SearchState(snapshot: reader.object("state"))
        let debouncePending = try reader.bool("debouncePending")
        shutdown()
        let interrupted = restored.results.pendingRequest
        if interrupted != nil {
            restored.results = restored.results.value.map { .loaded($0) } ?? .idle
        }
        state = restored
        metadataStarted = Set(
            (restored.results.value?.photos ?? []).filter { $0.favorites != nil && $0.comments != nil }.map(\.id)
        )
        if let interrupted {
            startSearch(interrupted)
        } else if debouncePending {
            setText(restored.searchText, autoSearch: true)
        }
    }

    // MARK: Search

    /// Cancels the pending automatic search, if any.
    private func dropPendingAutomaticSearch() {
        debounce?.cancel()
        debounce = nil
    }

    /// Ends the waits of ``waitUntilIdle()`` unless a search is still in flight or pending.
    private func resumeIdleWaitersUnlessBusy() {
        if !isBusy { idleWaiters.resumeAll() }
    }

    private func debounceFired() {
        debounce = nil
        // NB: waiters wait for the search in flight too (a `load-more` started while the debounce was pending).
        guard state.canSearch else {
            resumeIdleWaitersUnlessBusy()
            return
        }
        if let budget = upstreamBudget, !budget.take() {
            state.lastError = UpstreamError(
                kind: .upstream,
                message: "the automatic search did not run: the session has used its budget of searches for now; "
                    + "search again in \(budget.secondsUntilToken) s",
                status: 429)
            resumeIdleWaitersUnlessBusy()
            return
        }
        // NB: an automatic search is the same command as `execute`: latest wins.
        startSearch(SearchRequest(text: state.trimmedText, page: 1))
    }

    private func startSearch(_ request: SearchRequest) {
        let restore = search.abandon() ?? state.results
        if request.page == 1 { resetMetadata() }
        search.start(restoring: restore) { [weak self, service] id in
            let outcome = await LoadOutcome.of { try await service.search(text: request.text, page: request.page) }
            self?.finishSearch(id, request: request, outcome: outcome)
        }
        state.results = .loading(request, previous: restore.value)
    }

    private func finishSearch(
        _ id: LatestWins<Loadable<SearchResults, SearchRequest>>.LoadID, request: SearchRequest,
        outcome: LoadOutcome<FlickrSearchPage>
    ) {
        // NB: a search that was cancelled or replaced must not touch the state, even if its result arrived.
        guard let restore = search.finish(id) else { return }
        var next = state
        switch outcome {
        case .success(let page):
            let cells = page.photos.map(PhotoCell.init)
            let results: SearchResults
            if request.page == 1 {
                results = SearchResults(
                    searchString: request.text, totalResults: page.total, page: page.page, pages: page.pages,
                    photos: cells
                )
                next.recentSearches = Self.remember(
                    RecentSearch(
                        searchString: request.text, totalResults: page.total, thumbnailUrl: cells.first?.thumbnailUrl),
                    in: next.recentSearches
                )
            } else {
                var extended =
                    restore.value
                    ?? SearchResults(
                        searchString: request.text, totalResults: page.total, page: 0, pages: 0, photos: [])
                extended.photos += cells
                extended.page = page.page
                extended.pages = page.pages
                extended.totalResults = page.total
                results = extended
            }
            next.results = .loaded(results)
            next.lastError = nil
        case .failure(let error):
            next.results = .failed(error, previous: restore.value)
            next.lastError = error
        case .cancelled:
            next.results = restore
        }
        state = next
        resumeIdleWaitersUnlessBusy()
    }

    /// Puts `entry` first, drops an older entry of the same text, keeps at most ten.
    static func remember(_ entry: RecentSearch, in recent: [RecentSearch]) -> [RecentSearch] {
        var result = [entry]
        for old in recent where old.searchString != entry.searchString && result.count < SearchState.recentSearchLimit {
            result.append(old)
        }
        return result
    }

    // MARK: Photo metadata

    private func resetMetadata() {
        for inFlight in metadataInFlight.values { inFlight.task.cancel() }
        metadataInFlight.removeAll()
        metadataQueue.removeAll()
        metadataStarted.removeAll()
        metadataWaiters.resumeAll()
    }

    private func pumpMetadata() {
        while metadataInFlight.count < Self.metadataConcurrency, !metadataQueue.isEmpty {
            let photoID = metadataQueue.removeFirst()
            metadataStarted.insert(photoID)
            let load = nextMetadataLoad
            nextMetadataLoad &+= 1
            let task = Task { [weak self, service] in
                async let favorites = service.favoritesCount(photoID: photoID)
                async let comments = service.commentsCount(photoID: photoID)
                let counts = try? await (favorites, comments)
                self?.finishMetadata(photoID: photoID, load: load, counts: counts)
            }
            metadataInFlight[photoID] = (load, task)
        }
    }

    private func finishMetadata(photoID: String, load: Int, counts: (Int, Int)?) {
        // NB: a load cancelled by a new search must not write anything, nor end the new search's load of the
        // same photo (its entry, if one started meanwhile).
        guard metadataInFlight[photoID]?.load == load else { return }
        metadataInFlight[photoID] = nil
        if let counts {
            state.results = Self.settingMetadata(counts, of: photoID, in: state.results)
        }
        pumpMetadata()
        if metadataInFlight.isEmpty && metadataQueue.isEmpty { metadataWaiters.resumeAll() }
    }

    private static func settingMetadata(
        _ counts: (Int, Int), of photoID: String, in results: Loadable<SearchResults, SearchRequest>
    ) -> Loadable<SearchResults, SearchRequest> {
        func update(_ value: SearchResults?) -> SearchResults? {
            guard var value else { return nil }
            for index in value.photos.indices where value.photos[index].id == photoID {
                value.photos[index].favorites = counts.0
                value.photos[index].comments = counts.1
            }
            return value
        }
        switch results {
        case .idle: return .idle
        case .loading(let request, let previous): return .loading(request, previous: update(previous))
        case .loaded(let value): return update(value).map { .loaded($0) } ?? .idle
        case .failed(let error, let previous): return .failed(error, previous: update(previous))
        }
    }
}
