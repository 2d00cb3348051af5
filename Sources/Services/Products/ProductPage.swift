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
