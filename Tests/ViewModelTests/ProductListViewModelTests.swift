import EventLoop
import Services
import Testing

@testable import ViewModels

@LoopActor
@Suite("ProductListViewModel")
struct ProductListViewModelTests {
    let service = FakeProductService()
    let viewModel: ProductListViewModel
    let store: ViewModelTestStore<ProductListViewModel>

    init() {
        viewModel = ProductListViewModel(service: service)
        store = ViewModelTestStore(viewModel, service: service)
    }

    var page1: ProductList { ProductList(items: products(0..<20), page: 1, hasMore: true) }

    @Test func initialStateIsIdleAndEmpty() async {
        #expect(viewModel.state == ProductListState(list: .idle, lastError: nil))
        #expect(viewModel.state.json["items"] == [])
        #expect(viewModel.state.json["page"] == 0)
        #expect(viewModel.state.json["hasMore"] == false)
        await store.finish()
    }

    @Test func refreshLoadsPageOne() async {
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
        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("no page is loaded yet; refresh first")) { try viewModel.loadMore() }
        }
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("a load is already in progress")) { try viewModel.loadMore() }
        }
        #expect(service.requestedPages == [1])
        await store.send({ viewModel.cancel() }) { $0.list = .idle }
        await store.finish()
    }

    @Test func cancelMidFlightRestoresTheListWithoutError() async throws {
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
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.send({ viewModel.cancel() }) { $0.list = .idle }
        #expect(viewModel.state == ProductListState(list: .idle))
        #expect(service.cancelledPages == [1])
        await store.finish()
    }

    @Test func refreshCancelsLoadMoreInFlight() async throws {
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
        }
        try await store.send({ try viewModel.loadMore() }) { $0.list = .loading(.nextPage(2), previous: page1) }

        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: page1) }
        #expect(viewModel.state == ProductListState(list: .loading(.refresh, previous: page1)))
        #expect(service.cancelledPages == [2])
        #expect(service.pendingPages == [1])

        let fresh = products(100..<120)
        await store.send({ await service.answer(.success(ProductPage(items: fresh, page: 1, hasMore: true))) }) {
            $0.list = .loaded(ProductList(items: fresh, page: 1, hasMore: true))
        }
        #expect(viewModel.state == ProductListState(list: .loaded(ProductList(items: fresh, page: 1, hasMore: true))))
        await store.finish()
    }

    @Test(arguments: [
        UpstreamError(kind: .network, message: "could not connect: refused"),
        UpstreamError(kind: .upstream, message: "product API answered HTTP 500", status: 500),
        UpstreamError(kind: .business, message: "Product service is under maintenance"),
        UpstreamError(kind: .decoding, message: "product API sent a response that could not be read"),
    ])
    func everyErrorKindLandsInLastErrorAndKeepsItems(error: UpstreamError) async throws {
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
        }

        try await store.send({ try viewModel.loadMore() }) { $0.list = .loading(.nextPage(2), previous: page1) }
        await store.send({ await service.answer(.failure(error)) }) {
            $0.list = .failed(error, previous: page1)
            $0.lastError = error
        }
        #expect(viewModel.state == ProductListState(list: .failed(error, previous: page1), lastError: error))
        #expect(viewModel.state.items.count == 20, "nothing lost on failure")
        #expect(viewModel.state.json["lastError"]?["kind"] == .string(error.kind.rawValue))

        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: page1) }
        #expect(viewModel.state == ProductListState(list: .loading(.refresh, previous: page1), lastError: error))
        await store.send({ await service.answer(.failure(error)) }) { $0.list = .failed(error, previous: page1) }
        #expect(viewModel.state == ProductListState(list: .failed(error, previous: page1), lastError: error))

        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: page1) }
        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
            $0.lastError = nil
        }
        #expect(viewModel.state == ProductListState(list: .loaded(page1), lastError: nil), "success clears lastError")
        await store.finish()
    }

    @Test func aFailedFirstRefreshKeepsAnEmptyList() async {
        let error = UpstreamError(kind: .upstream, message: "HTTP 503", status: 503)
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        await store.send({ await service.answer(.failure(error)) }) {
            $0.list = .failed(error, previous: nil)
            $0.lastError = error
        }
        #expect(viewModel.state == ProductListState(list: .failed(error, previous: nil), lastError: error))
        #expect(viewModel.state.json["page"] == 0)
        await store.sendWithoutChange {
            #expect(throws: CommandDisabled("no page is loaded yet; refresh first")) { try viewModel.loadMore() }
        }
        await store.finish()
    }

    @Test func waitUntilIdleReturnsWhenTheLoadFinishes() async {
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        let waiter = Task { @LoopActor in
            await viewModel.waitUntilIdle()
            return viewModel.state.list
        }
        await settle()
        await store.send({
            await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        }) {
            $0.list = .loaded(page1)
        }
        #expect(await waiter.value == .loaded(page1))
        await store.finish()
    }

    @Test func aCancelledWaiterReturnsAtOnce() async {
        await store.send({ viewModel.refresh() }) { $0.list = .loading(.refresh, previous: nil) }
        let waiter = Task { @LoopActor in await viewModel.waitUntilIdle() }
        await settle()
        waiter.cancel()
        await waiter.value
        #expect(viewModel.isBusy, "the load itself goes on")
        await store.send({ viewModel.cancel() }) { $0.list = .idle }
        await store.finish()
    }
}
