import EventLoop
import Services
import Testing

/// A Flickr service the test drives by hand: every call waits until the test answers it.
@LoopActor
final class FakeFlickrService: FlickrService, HandAnsweredService {
    enum Call: Hashable {
        case search(String, Int)
        case favorites(String)
        case comments(String)
        case photoInfo(String)
        case photoComments(String)
    }

    enum Answer {
        case page(FlickrSearchPage)
        case count(Int)
        case detail(PhotoDetail)
        case commentList([PhotoComment])
    }

    struct WrongAnswer: Error {}

    private(set) var calls: [Call] = []
    private(set) var cancelled: [Call] = []
    private var pending: [(id: Int, call: Call, continuation: CheckedContinuation<Answer, any Error>)] = []
    private var nextID = 0

    var pendingCalls: [Call] { pending.map(\.call) }
    var pendingCallCount: Int { pending.count }

    func search(text: String, page: Int) async throws -> FlickrSearchPage {
        guard case .page(let page) = try await wait(.search(text, page)) else { throw WrongAnswer() }
        return page
    }

    func favoritesCount(photoID: String) async throws -> Int {
        guard case .count(let count) = try await wait(.favorites(photoID)) else { throw WrongAnswer() }
        return count
    }

    func commentsCount(photoID: String) async throws -> Int {
        guard case .count(let count) = try await wait(.comments(photoID)) else { throw WrongAnswer() }
        return count
    }

    func photoInfo(photoID: String) async throws -> PhotoDetail {
        guard case .detail(let detail) = try await wait(.photoInfo(photoID)) else { throw WrongAnswer() }
        return detail
    }

    func photoComments(photoID: String) async throws -> [PhotoComment] {
        guard case .commentList(let comments) = try await wait(.photoComments(photoID)) else { throw WrongAnswer() }
        return comments
    }

    private func wait(_ call: Call) async throws -> Answer {
        calls.append(call)
        let id = nextID
        nextID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // NB: a task cancelled before its call ran its cancellation handler first, which found nothing.
                guard !Task.isCancelled else {
                    cancelled.append(call)
                    continuation.resume(throwing: CancellationError())
                    return
                }
                pending.append((id, call, continuation))
            }
        } onCancel: {
            LoopActor.assumeIsolated { self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let entry = pending.remove(at: index)
        cancelled.append(entry.call)
        entry.continuation.resume(throwing: CancellationError())
    }

    /// Answers the pending call `call` and lets the view model process the answer.
    func answer(_ call: Call, with result: Result<Answer, UpstreamError>) async {
        await settle()
        guard let index = pending.firstIndex(where: { $0.call == call }) else {
            Issue.record("no pending call \(call); pending: \(pendingCalls)")
            return
        }
        let entry = pending.remove(at: index)
        entry.continuation.resume(with: result.mapError { $0 as any Error })
        await settle()
    }
}

/// A deterministic page of photos.
func photoPage(text: String, page: Int, pages: Int = 3, total: Int = 150, count: Int = 3) -> FlickrSearchPage {
    FlickrSearchPage(
        page: page, pages: pages, total: total,
        photos: (0..<count).map {
            FlickrPhoto(id: "\(text)-\(page)-\($0)", title: "\(text) \($0)", server: "65535", secret: "abcdef1234")
        }
    )
}
