import EventLoop
import JSON

/// A display-ready product cell: every string formatted on the server.
public struct Product: Sendable, Equatable {
    public var id: String
    public var title: String
    public var subtitle: String
    public var price: String
    public var badge: String
    public var detail: String
    public var imageUrl: String?

    /// Creates a product cell.
    public init(
        id: String, title: String, subtitle: String, price: String, badge: String, detail: String,
        imageUrl: String? = nil
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.price = price
        self.badge = badge
        self.detail = detail
        self.imageUrl = imageUrl
    }

    /// The API's item object.
    public var json: JSONValue {
        [
            "id": .string(id), "title": .string(title), "subtitle": .string(subtitle), "price": .string(price),
            "badge": .string(badge), "detail": .string(detail), "imageUrl": imageUrl.map { .string($0) } ?? .null,
        ]
    }
}

/// One page of products from upstream.
public struct ProductPage: Sendable, Equatable {
    /// The items of this page.
    public var items: [Product]
    /// The 1-based page number.
    public var page: Int
    /// Whether a further page exists.
    public var hasMore: Bool

    /// Creates a page.
    public init(items: [Product], page: Int, hasMore: Bool) {
        self.items = items
        self.page = page
        self.hasMore = hasMore
    }
}

/// The model layer of the product list: fetch one page.
@LoopActor
public protocol ProductService: AnyObject {
    /// Fetches page `page` (1-based).
    /// - Throws: ``UpstreamError`` or `CancellationError`.
    func fetchPage(_ page: Int) async throws -> ProductPage
}
