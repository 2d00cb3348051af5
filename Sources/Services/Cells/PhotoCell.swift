import JSON

/// A photo cell: display-ready, with its metadata once loaded.
public struct PhotoCell: Sendable {
    /// Flickr's photo id.
    public var id: String
    /// The title (may be empty).
    public var title: String
    /// Where the images are.
    public var images: PhotoCellImages
    /// Number of favorites; nil until loaded.
    public var favorites: Int?
    /// Number of comments; nil until loaded.
    public var comments: Int?

    /// A cell as the journal stored it.
    public init(id: String, title: String, url: String, thumbnailUrl: String) {
        self.id = id
        self.title = title
        images = .stored(url: url, thumbnailUrl: thumbnailUrl)
    }

    /// A cell for a Flickr photo, without metadata.
    public init(_ photo: FlickrPhoto) {
        id = photo.id
        title = photo.title
        images = .flickr(host: photo.imageHost, server: photo.server, secret: photo.secret)
    }

    /// The 240 px image.
    public var url: String { images.url(id: id, size: .small240) }
    /// The 75 px square thumbnail (used by recent searches).
    public var thumbnailUrl: String { images.url(id: id, size: .square75) }

    /// The thumbnail of the photo whose 240 px image is at `url`, for a cell rebuilt from the API's JSON (which
    /// has no thumbnail): Flickr's two URLs differ only by their size suffix (`_m.jpg`, `_s.jpg`); a URL of
    /// another form stands for its own thumbnail.
    public static func thumbnailURL(forImageURL url: String) -> String {
        let small = "_\(FlickrImageSize.small240.rawValue).jpg"
        guard url.hasSuffix(small) else { return url }
        return url.dropLast(small.utf8.count) + "_\(FlickrImageSize.square75.rawValue).jpg"
    }

    /// The API's PhotoCell object (without the thumbnail, which only recent searches show).
    public var json: JSONValue {
        [
            "id": .string(id), "title": .string(title), "url": .string(url),
            "favorites": favorites.map { .int($0) } ?? .null, "comments": comments.map { .int($0) } ?? .null,
        ]
    }
}

extension PhotoCell: Equatable {
    /// Cells are equal when they show the same: the same id, title, metadata and image URLs however kept.
    public static func == (lhs: PhotoCell, rhs: PhotoCell) -> Bool {
        guard lhs.id == rhs.id, lhs.title == rhs.title, lhs.favorites == rhs.favorites, lhs.comments == rhs.comments
        else { return false }
        switch (lhs.images, rhs.images) {
        case (.flickr, .flickr), (.stored, .stored): return lhs.images == rhs.images
        default: return lhs.url == rhs.url && lhs.thumbnailUrl == rhs.thumbnailUrl
        }
    }
}

/// Where a cell's images are.
///
/// A search result's photos keep Flickr's parts and format the URLs when shown: two image URLs of 60-odd bytes
/// each were the largest part of a session's memory, while the parts are short enough to live inside the
/// cell (Swift keeps strings of up to 15 bytes inline) and the host is shared by every photo.
public enum PhotoCellImages: Sendable, Equatable {
    /// Flickr's parts (`{host}/{server}/{id}_{secret}_{size}.jpg`).
    case flickr(host: FlickrImageHost, server: String, secret: String)
    /// The URLs as the journal stored them.
    case stored(url: String, thumbnailUrl: String)

    /// The URL of photo `id` in `size` (`.small240` or `.square75` when stored).
    func url(id: String, size: FlickrImageSize) -> String {
        switch self {
        case .flickr(let host, let server, let secret): host.url(server: server, id: id, secret: secret, size: size)
        case .stored(let url, let thumbnailUrl): size == .square75 ? thumbnailUrl : url
        }
    }
}
