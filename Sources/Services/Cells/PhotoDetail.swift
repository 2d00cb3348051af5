import JSON

/// The details of one Flickr photo, display-ready (API.md "Photo view model", `detail.value`).
public struct PhotoDetail: Sendable, Equatable {
    /// Flickr's photo id.
    public var id: String
    /// The title (may be empty).
    public var title: String
    /// The description as plain text (may be empty).
    public var description: String
    /// The owner's real name, or their user name when the real name is empty.
    public var owner: String
    /// When the photo was taken, in the camera's local time: `YYYY-MM-DDTHH:MM:SS`; nil when Flickr gives none.
    public var takenAt: String?
    /// How often the photo was viewed; nil when Flickr does not say.
    public var views: Int?
    /// The tags as the owner typed them, in Flickr's order.
    public var tags: [String]
    /// The large (1024 px) image.
    public var imageUrl: String
    /// The photo's page on Flickr.
    public var pageUrl: String

    /// Creates a detail.
    public init(
        id: String, title: String, description: String, owner: String, takenAt: String?, views: Int?,
        tags: [String], imageUrl: String, pageUrl: String
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.owner = owner
        self.takenAt = takenAt
        self.views = views
        self.tags = tags
        self.imageUrl = imageUrl
        self.pageUrl = pageUrl
    }

    /// The API's PhotoDetail object.
    public var json: JSONValue {
        [
            "id": .string(id), "title": .string(title), "description": .string(description),
            "owner": .string(owner), "takenAt": takenAt.map { .string($0) } ?? .null,
            "views": views.map { .int($0) } ?? .null, "tags": .array(tags.map { .string($0) }),
            "imageUrl": .string(imageUrl), "pageUrl": .string(pageUrl),
        ]
    }
}
