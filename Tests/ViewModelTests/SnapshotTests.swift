import EventLoop
import JSON
import Services
import Testing
import VMHostTesting

@testable import ViewModels

/// Snapshot and restore: what the journal stores and another process continues from.
@LoopActor
@Suite("View model snapshots")
struct SnapshotTests {
    @Test(arguments: SnapshotForm.allCases)
    func aLoadedSearchWithRecentSearchesAndMetadataRestoresEqual(form: SnapshotForm) async throws {
        let service = FakeFlickrService()
        let original = SearchViewModel(service: service, clock: TestClock().clock)
        try original.execute(text: "kittens")
        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        try original.loadMore()
        await service.answer(.search("kittens", 2), with: .success(.page(photoPage(text: "kittens", page: 2))))
        let firstPhoto = try #require(original.state.results.value?.photos.first?.id)
        original.visible([firstPhoto])
        await service.answer(.favorites(firstPhoto), with: .success(.count(7)))
        await service.answer(.comments(firstPhoto), with: .success(.count(2)))
        #expect(original.state.results.value?.photos.first?.favorites == 7)
        #expect(
            try SnapshotForm.stateAndExtras.snapshot(of: original) == SnapshotForm.snapshotText.snapshot(of: original),
            "the state's JSON and the extras make the snapshot itself (thumbnails included)")

        let other = FakeFlickrService()
        let clock = TestClock()
        let restored = SearchViewModel(service: other, clock: clock.clock)
        let store = ViewModelTestStore(restored, clock: clock, service: other)
        try await store.send({ try restored.restore(form.snapshot(of: original)) }) { $0 = original.state }
        #expect(restored.state == original.state)
        #expect(restored.state.json == original.state.json)
        #expect(!restored.isBusy)
        #expect(other.calls.isEmpty)
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func aPendingAutomaticSearchIsScheduledAgainWhereItIsRestored(form: SnapshotForm) async throws {
        let original = SearchViewModel(service: FakeFlickrService(), clock: TestClock().clock)
        original.setText("kittens", autoSearch: true)
        let snapshot = try form.snapshot(of: original)
        original.shutdown()

        let other = FakeFlickrService()
        let clock = TestClock()
        let restored = SearchViewModel(service: other, clock: clock.clock)
        let store = ViewModelTestStore(restored, clock: clock, service: other)
        try await store.send({ try restored.restore(snapshot) }) { $0.searchText = "kittens" }
        #expect(restored.isBusy, "the automatic search is pending")
        await store.advance(by: SearchViewModel.debounceInterval - .milliseconds(1))
        #expect(other.calls.isEmpty)
        await store.advance(by: .milliseconds(1)) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: nil)
        }
        await store.send({
            await other.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        }) {
            $0.results = .loaded(
                SearchResults(
                    searchString: "kittens", totalResults: 150, page: 1, pages: 3,
                    photos: photoPage(text: "kittens", page: 1).photos.map(PhotoCell.init)))
            $0.recentSearches = [
                RecentSearch(
                    searchString: "kittens", totalResults: 150,
                    thumbnailUrl: "https://live.staticflickr.com/65535/kittens-1-0_abcdef1234_s.jpg")
            ]
        }
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func aSearchInFlightRunsAgainWhereItIsRestored(form: SnapshotForm) async throws {
        let service = FakeFlickrService()
        let original = SearchViewModel(service: service, clock: TestClock().clock)
        try original.execute(text: "kittens")
        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        try original.loadMore()
        let snapshot = try form.snapshot(of: original)

        let other = FakeFlickrService()
        let clock = TestClock()
        let restored = SearchViewModel(service: other, clock: clock.clock)
        let store = ViewModelTestStore(restored, clock: clock, service: other)
        // The restored state shows the results the load started on, then that load starts again.
        var shown = try #require(original.state.results.value)
        try await store.send({ try restored.restore(snapshot) }) {
            $0 = original.state
            $0.results = .loaded(shown)
        }
        store.receive { $0.results = original.state.results }
        #expect(restored.state.json == original.state.json, "the same state, page 2 loading")
        #expect(other.pendingCalls == [.search("kittens", 2)], "the interrupted page is requested again")
        shown.photos += photoPage(text: "kittens", page: 2).photos.map(PhotoCell.init)
        shown.page = 2
        await store.send({
            await other.answer(.search("kittens", 2), with: .success(.page(photoPage(text: "kittens", page: 2))))
        }) {
            $0.results = .loaded(shown)
        }
        #expect(restored.state.results.value?.page == 2)
        #expect(restored.state.results.value?.photos.count == 6)
        #expect(!restored.isBusy)
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func aProductListRestoresAndAnInterruptedLoadRunsAgain(form: SnapshotForm) async throws {
        let service = FakeProductService()
        let original = ProductListViewModel(service: service)
        original.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        try original.loadMore()

        let other = FakeProductService()
        let restored = ProductListViewModel(service: other)
        let store = ViewModelTestStore(restored, service: other)
        // The restored state shows the list the load started on, then that load starts again.
        let page1 = ProductList(items: products(0..<20), page: 1, hasMore: true)
        try await store.send({ try restored.restore(form.snapshot(of: original)) }) { $0.list = .loaded(page1) }
        store.receive { $0.list = .loading(.nextPage(2), previous: page1) }
        #expect(restored.state == original.state)
        #expect(other.pendingPages == [2])
        await store.send({
            await other.answer(.success(ProductPage(items: products(20..<40), page: 2, hasMore: false)))
        }) {
            $0.list = .loaded(ProductList(items: products(0..<40), page: 2, hasMore: false))
        }
        #expect(restored.state.items.count == 40)
        #expect(restored.state.lastError == nil)
        await store.finish()
    }

    @Test(arguments: SnapshotForm.allCases)
    func failuresAndErrorsSurviveASnapshot(form: SnapshotForm) async throws {
        let service = FakeProductService()
        let original = ProductListViewModel(service: service)
        original.refresh()
        await service.answer(.failure(UpstreamError(kind: .upstream, message: "HTTP 503", status: 503)))
        let other = FakeProductService()
        let restored = ProductListViewModel(service: other)
        let store = ViewModelTestStore(restored, service: other)
        try await store.send({ try restored.restore(form.snapshot(of: original)) }) { $0 = original.state }
        #expect(restored.state == original.state)
        #expect(restored.state.lastError?.status == 503)
        await store.finish()
    }

    /// A load's extras are its snapshot without the value, with whether it has one, in every case (the cases
    /// without a payload are written as literals); with the value they make the snapshot again.
    @Test func extrasAreTheSnapshotWithoutTheValue() throws {
        let results = SearchResults(
            searchString: "kittens", totalResults: 150, page: 1, pages: 3,
            photos: photoPage(text: "kittens", page: 1).photos.map(PhotoCell.init))
        let error = UpstreamError(kind: .upstream, message: "HTTP 503", status: 503)
        let request = SearchRequest(text: "kittens", page: 2)
        let loads: [Loadable<SearchResults, SearchRequest>] = [
            .idle, .loading(request, previous: nil), .loading(request, previous: results), .loaded(results),
            .failed(error, previous: nil), .failed(error, previous: results),
        ]
        for load in loads {
            var extrasText = JSONTextWriter()
            load.writeExtras(to: &extrasText) { $0.writeSnapshot(to: &$1) }
            let extras = try JSONParser.parse(extrasText.take())
            var snapshotText = JSONTextWriter()
            load.writeSnapshot(to: &snapshotText)
            let snapshot = try JSONParser.parse(snapshotText.take())
            var expected = try #require(snapshot.objectValue)
            expected["hasValue"] = .bool(load.value != nil)
            expected["value"] = nil
            #expect(extras == .object(expected), "\(load)")
            let value = try load.value.map { value in
                var text = JSONTextWriter()
                value.writeSnapshot(to: &text)
                return try JSONParser.parse(text.take())
            }
            #expect(try Loadable<SearchResults, SearchRequest>.snapshot(extras: extras, value: value) == snapshot)
        }
    }

    /// The extras change with what the state's JSON does not show (a pending automatic search, a load's request),
    /// not with what it does: typing changes the state alone, so the journal writes only its patches.
    @Test func typingChangesTheStateButNotTheExtras() async throws {
        let service = FakeFlickrService()
        let clock = TestClock()
        let viewModel = SearchViewModel(service: service, clock: clock.clock)
        let store = ViewModelTestStore(viewModel, clock: clock, service: service)
        let initial = viewModel.extrasText
        await store.send({ viewModel.setText("kit") }) { $0.searchText = "kit" }
        #expect(viewModel.extrasText == initial)
        await store.send({ viewModel.setText("kitten", autoSearch: true) }) { $0.searchText = "kitten" }
        let pending = viewModel.extrasText
        #expect(pending != initial, "an automatic search is pending")
        await store.send({ viewModel.setText("kittens", autoSearch: true) }) { $0.searchText = "kittens" }
        #expect(viewModel.extrasText == pending, "still one pending")
        try await store.send({ try viewModel.execute(text: "kittens") }) {
            $0.results = .loading(SearchRequest(text: "kittens", page: 1), previous: nil)
        }
        let extras = try JSONParser.parse(viewModel.extrasText)
        #expect(
            extras == [
                "results": [
                    "hasValue": false, "error": nil, "status": "loading", "request": ["text": "kittens", "page": 1],
                ],
                "debouncePending": false,
            ])
        await store.send({ viewModel.shutdown() }) { $0.results = .idle }
        await store.finish()
    }

    @Test(arguments: [
        ("null", #"{"results": {"hasValue": false, "error": null, "status": "idle"}, "debouncePending": false}"#),
        (
            #"{"searchText": "a"}"#,
            #"{"results": {"hasValue": false, "error": null, "status": "idle"}, "debouncePending": false}"#
        ),
        (
            #"{"searchText": "a", "results": {"status": "idle", "value": null, "error": null}, "recentSearches": [], "lastError": null}"#,
            "null"
        ),
        (
            #"{"searchText": "a", "results": {"status": "idle", "value": null, "error": null}, "recentSearches": [], "lastError": null}"#,
            #"{"results": {}, "debouncePending": false}"#
        ),
        (
            #"{"searchText": "a", "results": {"status": "loaded", "value": null, "error": null}, "recentSearches": [], "lastError": null}"#,
            #"{"results": {"hasValue": true, "error": null, "status": "loaded"}, "debouncePending": false}"#
        ),
        (
            #"{"searchText": "a", "results": {"status": "loaded", "value": {"photos": [{"id": "1"}]}, "error": null}, "recentSearches": [], "lastError": null}"#,
            #"{"results": {"hasValue": true, "error": null, "status": "loaded"}, "debouncePending": false}"#
        ),
        (
            #"{"searchText": "a", "results": {"status": "idle", "value": null, "error": null}, "recentSearches": [], "lastError": null}"#,
            #"{"results": {"hasValue": false, "error": null, "status": "idle"}}"#
        ),
        (
            #"{"searchText": "a", "results": {"status": "idle", "value": null, "error": null}, "recentSearches": [], "lastError": null}"#,
            #"{"results": {"hasValue": false, "error": null, "status": "weird"}, "debouncePending": false}"#
        ),
    ])
    func wrongStatesOrExtrasAreErrorsAndChangeNothing(state: String, extras: String) async throws {
        let clock = TestClock()
        let viewModel = SearchViewModel(service: FakeFlickrService(), clock: clock.clock)
        let store = ViewModelTestStore(viewModel, clock: clock)
        await store.send({ viewModel.setText("kept") }) { $0.searchText = "kept" }
        await store.sendWithoutChange {
            #expect(throws: SnapshotError.self) {
                try viewModel.restore(state: JSONParser.parse(state), extras: JSONParser.parse(extras))
            }
        }
        #expect(viewModel.state == SearchState(searchText: "kept"))
        await store.finish()
    }

    @Test(arguments: [
        "null", "[]", #"{}"#, #"{"state": {"searchText": 1}}"#,
        #"{"state": {"searchText": "a", "results": {"status": "weird"}, "recentSearches": [], "lastError": null}, "debouncePending": false}"#,
        #"{"state": {"searchText": "a", "results": {"status": "loaded", "value": null}, "recentSearches": [], "lastError": null}, "debouncePending": false}"#,
        #"{"state": {"searchText": "a", "results": {"status": "idle"}, "recentSearches": [{"searchString": 5}], "lastError": null}, "debouncePending": false}"#,
        #"{"state": {"searchText": "a", "results": {"status": "idle"}, "recentSearches": [], "lastError": {"kind": "alien", "message": "x"}}, "debouncePending": false}"#,
    ])
    func corruptSnapshotsAreErrorsAndChangeNothing(text: String) async throws {
        let clock = TestClock()
        let viewModel = SearchViewModel(service: FakeFlickrService(), clock: clock.clock)
        let store = ViewModelTestStore(viewModel, clock: clock)
        await store.send({ viewModel.setText("kept") }) { $0.searchText = "kept" }
        await store.sendWithoutChange {
            #expect(throws: SnapshotError.self) { try viewModel.restore(JSONParser.parse(text)) }
        }
        #expect(viewModel.state == SearchState(searchText: "kept"))
        await store.finish()
    }
}
