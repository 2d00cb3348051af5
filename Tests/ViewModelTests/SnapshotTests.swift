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
    /// A view model's snapshot as the journal reads it back from Redis: its text, parsed.
    func snapshot(of viewModel: some HostedViewModel) throws -> JSONValue {
        try JSONParser.parse(viewModel.snapshotText)
    }

    @Test func aLoadedSearchWithRecentSearchesAndMetadataRestoresEqual() async throws {
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

        let restored = SearchViewModel(service: FakeFlickrService(), clock: TestClock().clock)
        try restored.restore(snapshot(of: original))
        #expect(restored.state == original.state)
        #expect(restored.state.json == original.state.json)
        #expect(!restored.isBusy)
    }

    @Test func aSearchInFlightRunsAgainWhereItIsRestored() async throws {
        let service = FakeFlickrService()
        let original = SearchViewModel(service: service, clock: TestClock().clock)
        try original.execute(text: "kittens")
        await service.answer(.search("kittens", 1), with: .success(.page(photoPage(text: "kittens", page: 1))))
        try original.loadMore()
        let snapshot = try snapshot(of: original)

        let other = FakeFlickrService()
        let restored = SearchViewModel(service: other, clock: TestClock().clock)
        try restored.restore(snapshot)
        #expect(restored.state.json == original.state.json, "the same state, page 2 loading")
        await settle()
        #expect(other.pendingCalls == [.search("kittens", 2)], "the interrupted page is requested again")
        await other.answer(.search("kittens", 2), with: .success(.page(photoPage(text: "kittens", page: 2))))
        #expect(restored.state.results.value?.page == 2)
        #expect(restored.state.results.value?.photos.count == 6)
        #expect(!restored.isBusy)
    }

    @Test func aProductListRestoresAndAnInterruptedLoadRunsAgain() async throws {
        let service = FakeProductService()
        let original = ProductListViewModel(service: service)
        original.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        try original.loadMore()

        let other = FakeProductService()
        let restored = ProductListViewModel(service: other)
        try restored.restore(snapshot(of: original))
        #expect(restored.state == original.state)
        await settle()
        #expect(other.pendingPages == [2])
        await other.answer(.success(ProductPage(items: products(20..<40), page: 2, hasMore: false)))
        #expect(restored.state.items.count == 40)
        #expect(restored.state.lastError == nil)
    }

    @Test func failuresAndErrorsSurviveASnapshot() async throws {
        let service = FakeProductService()
        let original = ProductListViewModel(service: service)
        original.refresh()
        await service.answer(.failure(UpstreamError(kind: .upstream, message: "HTTP 503", status: 503)))
        let restored = ProductListViewModel(service: FakeProductService())
        try restored.restore(snapshot(of: original))
        #expect(restored.state == original.state)
        #expect(restored.state.lastError?.status == 503)
    }

    @Test(arguments: [
        "null", "[]", #"{}"#, #"{"state": {"searchText": 1}}"#,
        #"{"state": {"searchText": "a", "results": {"status": "weird"}, "recentSearches": [], "lastError": null}, "debouncePending": false}"#,
        #"{"state": {"searchText": "a", "results": {"status": "loaded", "value": null}, "recentSearches": [], "lastError": null}, "debouncePending": false}"#,
        #"{"state": {"searchText": "a", "results": {"status": "idle"}, "recentSearches": [{"searchString": 5}], "lastError": null}, "debouncePending": false}"#,
        #"{"state": {"searchText": "a", "results": {"status": "idle"}, "recentSearches": [], "lastError": {"kind": "alien", "message": "x"}}, "debouncePending": false}"#,
    ])
    func corruptSnapshotsAreErrorsAndChangeNothing(text: String) throws {
        let viewModel = SearchViewModel(service: FakeFlickrService(), clock: TestClock().clock)
        viewModel.setText("kept")
        #expect(throws: SnapshotError.self) { try viewModel.restore(JSONParser.parse(text)) }
        #expect(viewModel.state == SearchState(searchText: "kept"))
    }
}
