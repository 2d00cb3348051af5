import EventLoop
import Services
import Testing

/// A product service the test drives by hand: every fetch waits until the test answers it.
@LoopActor
final class FakeProductService: ProductService, HandAnsweredService {
    private let calls = PendingCalls<Int, ProductPage>()

    /// Pages requested, in order.
    var requestedPages: [Int] { calls.made }
    /// Pages whose fetch was cancelled (the transfer would have been aborted).
    var cancelledPages: [Int] { calls.cancelled }
    var pendingPages: [Int] { calls.pending }
    var pendingCallCount: Int { calls.pending.count }

    func fetchPage(_ page: Int) async throws -> ProductPage {
        try await calls.wait(page)
    }

    /// Answers the oldest pending fetch, then lets the view model process the answer.
    func answer(_ result: Result<ProductPage, UpstreamError>) async {
        await settle()
        if !calls.answer(result.mapError { $0 as any Error }) { Issue.record("no fetch is waiting") }
        await settle()
    }
}

/// Lets every job queued on the loop run (the loop is FIFO, so a few yields drain what we started).
@LoopActor
func settle() async {
    precondition(EventLoop.shared.isOnLoopThread, "loop-isolated test code must run on the loop thread")
    for _ in 0..<10 { await Task.yield() }
}

/// Deterministic products.
func products(_ range: Range<Int>) -> [Product] {
    range.map {
        Product(
            id: "p-\($0)", title: "Product \($0)", subtitle: "Bank", price: "1,000.00", badge: "On sale",
            detail: "90 days · 4.15%")
    }
}
