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

    private let waiting = PendingCalls<Call, Answer>()

    /// Every call made, in order.
    var calls: [Call] { waiting.made }
    /// The calls whose task was cancelled, in order.
    var cancelled: [Call] { waiting.cancelled }
    var pendingCalls: [Call] { waiting.pending }
    var pendingCallCount: Int { waiting.pending.count }

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
        try await waiting.wait(call)
    }

    /// Answers the pending call `call` and lets the view model process the answer.
    func answer(_ call: Call, with result: Result<Answer, UpstreamError>) async {
        await settle()
        answerNow(call, with: result)
        await settle()
    }

    /// Answers the pending call `call` without letting anything run: the caller's task is on its way back to the
    /// loop when this returns, as when an upstream answers in the same turn as a command.
    func answerNow(_ call: Call, with result: Result<Answer, UpstreamError>) {
        if !waiting.answer(result.mapError { $0 as any Error }, toFirst: { $0 == call }) {
            Issue.record("no pending call \(call); pending: \(pendingCalls)")
        }
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
