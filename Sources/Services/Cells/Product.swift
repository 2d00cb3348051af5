import JSON

/// A display-ready product cell: every string formatted on the server (``ProductFormatting``).
public struct Product: Sendable, Equatable {
    /// The upstream's product id, as a string.
    public var id: String
    /// The product's name.
    public var title: String
    /// The brand, category or bank under the title.
    public var subtitle: String
    /// The price or amount, formatted.
    public var price: String
    /// A short status (`In stock`, a sale status).
    public var badge: String
    /// One line of further facts (rating and discount, term and profit).
    public var detail: String
    /// The thumbnail, when the upstream has one.
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
