import EventLoop
import Services
import Testing

/// A product service the test drives by hand: every fetch waits until the test answers it.
@LoopActor
final class FakeProductService: ProductService, HandAnsweredService {
    /// Pages requested, in order.
    private(set) var requestedPages: [Int] = []
    /// Pages whose fetch was cancelled (the transfer would have been aborted).
    private(set) var cancelledPages: [Int] = []
    private var pending: [(id: Int, page: Int, continuation: CheckedContinuation<ProductPage, any Error>)] = []
    private var nextID = 0

    var pendingPages: [Int] { pending.map(\.page) }
    var pendingCallCount: Int { pending.count }

    func fetchPage(_ page: Int) async throws -> ProductPage {
        requestedPages.append(page)
        let id = nextID
        nextID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // NB: a task cancelled before its fetch ran its cancellation handler first, which found nothing.
                guard !Task.isCancelled else {
                    cancelledPages.append(page)
                    continuation.resume(throwing: CancellationError())
                    return
                }
                pending.append((id, page, continuation))
            }
        } onCancel: {
            LoopActor.assumeIsolated { self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let entry = pending.remove(at: index)
        cancelledPages.append(entry.page)
        entry.continuation.resume(throwing: CancellationError())
    }

    /// Answers the oldest pending fetch, then lets the view model process the answer.
    func answer(_ result: Result<ProductPage, UpstreamError>) async {
        await settle()
        guard !pending.isEmpty else {
            Issue.record("no fetch is waiting")
            return
        }
        let entry = pending.removeFirst()
        entry.continuation.resume(with: result.mapError { $0 as any Error })
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
