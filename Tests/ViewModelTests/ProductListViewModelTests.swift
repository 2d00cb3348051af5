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
        viewModel.refresh()
        #expect(viewModel.state == ProductListState(list: .loading(.refresh, previous: nil)))
        #expect(viewModel.state.isRefreshing && !viewModel.state.isLoadingMore)
        await settle()
        #expect(service.requestedPages == [1])

        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        #expect(viewModel.state == ProductListState(list: .loaded(page1)))
        #expect(!viewModel.state.isRefreshing)
        #expect(changes.count == 2)
    }

    @Test func loadMoreAppendsTheNextPageUntilTheEnd() async throws {
        viewModel.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))

        try viewModel.loadMore()
        #expect(viewModel.state == ProductListState(list: .loading(.nextPage(2), previous: page1)))
        #expect(viewModel.state.isLoadingMore && !viewModel.state.isRefreshing)
        #expect(viewModel.state.items.count == 20, "items stay visible while loading")

        await service.answer(.success(ProductPage(items: products(20..<25), page: 2, hasMore: false)))
        #expect(
            viewModel.state
                == ProductListState(list: .loaded(ProductList(items: products(0..<25), page: 2, hasMore: false))))
        #expect(service.requestedPages == [1, 2])

        #expect(throws: CommandDisabled("there are no more pages")) { try viewModel.loadMore() }
    }

    @Test func loadMoreIsDisabledBeforeAPageAndWhileLoading() async {
        #expect(throws: CommandDisabled("no page is loaded yet; refresh first")) { try viewModel.loadMore() }
        viewModel.refresh()
        #expect(throws: CommandDisabled("a load is already in progress")) { try viewModel.loadMore() }
        await settle()
        #expect(service.requestedPages == [1])
    }

    @Test func cancelMidFlightRestoresTheListWithoutError() async throws {
        viewModel.refresh()
        await service.answer(.success(ProductPage(items: products(0..<20), page: 1, hasMore: true)))
        try viewModel.loadMore()
        await settle()

        viewModel.cancel()
        #expect(viewModel.state == ProductListState(list: .loaded(page1), lastError: nil))
        await settle()
        #expect(service.cancelledPages == [2], "the upstream call was cancelled")
        #expect(service.pendingPages.isEmpty)
        #expect(viewModel.isBusy == false)
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
