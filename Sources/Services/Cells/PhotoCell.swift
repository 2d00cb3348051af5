import JSON

/// A photo cell: display-ready, with its metadata once loaded.
public struct PhotoCell: Sendable, Equatable {
    /// Flickr's photo id.
    public var id: String
    /// The title (may be empty).
    public var title: String
    /// The 240 px image.
    public var url: String
    /// The 75 px square thumbnail (used by recent searches).
    public var thumbnailUrl: String
    /// Number of favorites; nil until loaded.
    public var favorites: Int?
    /// Number of comments; nil until loaded.
    public var comments: Int?

    /// A cell as the journal stored it.
    public init(id: String, title: String, url: String, thumbnailUrl: String) {
        self.id = id
        self.title = title
        self.url = url
        self.thumbnailUrl = thumbnailUrl
    }

    /// A cell for a Flickr photo, without metadata.
    public init(_ photo: FlickrPhoto) {
        id = photo.id
        title = photo.title
        url = photo.url
        thumbnailUrl = photo.thumbnailUrl
    }

    /// The API's PhotoCell object (without the thumbnail, which only recent searches show).
    public var json: JSONValue {
        [
            "id": .string(id), "title": .string(title), "url": .string(url),
            "favorites": favorites.map { .int($0) } ?? .null, "comments": comments.map { .int($0) } ?? .null,
        ]
    }
}
