import EventLoop
import Services
import Testing

@testable import ViewModels

@LoopActor
@Suite("ProductListViewModel")
struct ProductListViewModelTests {
    let service = FakeProductService()
    let viewModel: ProductListViewModel
    var changes: [ProductListState] { recorder.states }
    let recorder = StateRecorder()

    init() {
        viewModel = ProductListViewModel(service: service)
        viewModel.onChange = { [recorder] in recorder.states.append($0) }
    }

    var page1: ProductList { ProductList(items: products(0..<20), page: 1, hasMore: true) }

    @Test func initialStateIsIdleAndEmpty() {
        #expect(viewModel.state == ProductListState(list: .idle, lastError: nil))
        #expect(viewModel.state.json["items"] == [])
        #expect(viewModel.state.json["page"] == 0)
        #expect(viewModel.state.json["hasMore"] == false)
        #expect(changes.isEmpty)
    }

    @Test func refreshLoadsPageOne() async {
        let store = ViewModelTestStore(viewModel)
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        #expect(store.state.isRefreshing && !store.state.isLoadingMore)
        #expect(service.requestedPages == [1])

        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
        }
        #expect(!store.state.isRefreshing)
        await store.finish()
    }

    @Test func loadMoreAppendsTheNextPageUntilTheEnd() async throws {
        let store = ViewModelTestStore(viewModel)
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
        }

        try await store.send({ try viewModel.loadMore() }) { $0.list = .loading(.nextPage(2), previous: page1) }
        #expect(store.state.isLoadingMore && !store.state.isRefreshing)
        #expect(store.state.items.count == 20, "items stay visible while loading")

        await store.send({
            await service.answer(.success(ProductPage(items: products(20..<25), page: 2, hasMore: false)))
        }) {
            $0.list = .loaded(ProductList(items: products(0..<25), page: 2, hasMore: false))
        }
        #expect(service.requestedPages == [1, 2])

        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("there are no more pages")) { try viewModel.loadMore() }
        }
        await store.finish()
    }

    /// The store itself: a change left unasserted, or work left running, fails the test.
    @Test func theTestStoreFailsOnAnUnassertedChangeOrWorkLeftRunning() async {
        let store = ViewModelTestStore(viewModel)
        viewModel.refresh()
        await withKnownIssue("the refresh's change was not asserted, and its load still runs") {
            await store.finish()
        }
        store.receive { $0.list = .loading(.refresh, previous: nil) }
        await withKnownIssue("the load still runs") { await store.finish() }
        await store.send({ await service.answer(.failure(UpstreamError(kind: .network, message: "down"))) }) {
            let error = UpstreamError(kind: .network, message: "down")
            $0.list = .failed(error, previous: nil)
            $0.lastError = error
        }
        await store.finish()
    }

    @Test func loadMoreIsDisabledBeforeAPageAndWhileLoading() async {
        #expect(throws: CommandDisabled("no page is loaded yet; refresh first")) { try viewModel.loadMore() }
        viewModel.refresh()
        #expect(throws: CommandDisabled("a load is already in progress")) { try viewModel.loadMore() }
        await settle()
        #expect(service.requestedPages == [1])
    }

    @Test func cancelMidFlightRestoresTheListWithoutError() async throws {
        let store = ViewModelTestStore(viewModel)
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
        }
        try await store.send({ try viewModel.loadMore() }) { $0.list = .loading(.nextPage(2), previous: page1) }

        await store.send({ viewModel.cancel() }) { $0.list = .loaded(page1) }
        #expect(store.state == ProductListState(list: .loaded(page1), lastError: nil))
        #expect(service.cancelledPages == [2], "the upstream call was cancelled")
        #expect(service.pendingPages.isEmpty)
        #expect(viewModel.isBusy == false)
        await store.finish()
    }

    @Test func cancelOfTheFirstRefreshReturnsToIdle() async {
        viewModel.refresh()
        await settle()
        viewModel.cancel()
        #expect(viewModel.state == ProductListState(list: .idle))
        await settle()
        #expect(service.cancelledPages == [1])
    }

    @Test func refreshCancelsLoadMoreInFlight() async throws {
        viewModel.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        try viewModel.loadMore()
        await settle()

        viewModel.refresh()
        #expect(viewModel.state == ProductListState(list: .loading(.refresh, previous: page1)))
        await settle()
        #expect(service.cancelledPages == [2])
        #expect(service.pendingPages == [1])

        let fresh = products(100..<120)
        await service.answer(.success(ProductPage(items: fresh, page: 1, hasMore: true)))
        #expect(viewModel.state == ProductListState(list: .loaded(ProductList(items: fresh, page: 1, hasMore: true))))
    }

    @Test(arguments: [
        UpstreamError(kind: .network, message: "could not connect: refused"),
        UpstreamError(kind: .upstream, message: "product API answered HTTP 500", status: 500),
        UpstreamError(kind: .business, message: "Product service is under maintenance"),
        UpstreamError(kind: .decoding, message: "product API sent a response that could not be read"),
    ])
    func everyErrorKindLandsInLastErrorAndKeepsItems(error: UpstreamError) async throws {
        viewModel.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))

        try viewModel.loadMore()
        await service.answer(.failure(error))
        #expect(viewModel.state == ProductListState(list: .failed(error, previous: page1), lastError: error))
        #expect(viewModel.state.items.count == 20, "nothing lost on failure")
        #expect(viewModel.state.json["lastError"]?["kind"] == .string(error.kind.rawValue))

        viewModel.refresh()
        #expect(viewModel.state == ProductListState(list: .loading(.refresh, previous: page1), lastError: error))
        await service.answer(.failure(error))
        #expect(viewModel.state == ProductListState(list: .failed(error, previous: page1), lastError: error))

        viewModel.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        #expect(viewModel.state == ProductListState(list: .loaded(page1), lastError: nil), "success clears lastError")
    }

    @Test func aFailedFirstRefreshKeepsAnEmptyList() async {
        let error = UpstreamError(kind: .upstream, message: "HTTP 503", status: 503)
        viewModel.refresh()
        await service.answer(.failure(error))
        #expect(viewModel.state == ProductListState(list: .failed(error, previous: nil), lastError: error))
        #expect(viewModel.state.json["page"] == 0)
        #expect(throws: CommandDisabled("no page is loaded yet; refresh first")) { try viewModel.loadMore() }
    }

    @Test func waitUntilIdleReturnsWhenTheLoadFinishes() async {
        viewModel.refresh()
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state.list
        }
        await settle()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        #expect(await waiter.value == .loaded(page1))
    }

    @Test func aCancelledWaiterReturnsAtOnce() async {
        viewModel.refresh()
        let waiter = Task { @LoopActor in await viewModel.waitUntilIdle() }
        await settle()
        waiter.cancel()
        await waiter.value
        #expect(viewModel.isBusy, "the load itself goes on")
    }
}

@LoopActor
final class StateRecorder {
    var states: [ProductListState] = []
}
