/// One photo of a Flickr search result, with the parts needed to build its static image URLs.
public struct FlickrPhoto: Sendable, Equatable {
    /// Flickr's photo id (a numeric string).
    public var id: String
    /// The photo's title (may be empty).
    public var title: String
    /// The static server the image lives on.
    public var server: String
    /// The secret that is part of the image URL.
    public var secret: String
    /// Where the images are served from.
    public var imageHost: FlickrImageHost

    /// Creates a photo.
    public init(id: String, title: String, server: String, secret: String, imageHost: FlickrImageHost = .live) {
        self.id = id
        self.title = title
        self.server = server
        self.secret = secret
        self.imageHost = imageHost
    }

    /// The 240 px image: `{imageHost}/{server}/{id}_{secret}_m.jpg`.
    public var url: String { imageURL(.small240) }

    /// The 75 px square: `{imageHost}/{server}/{id}_{secret}_s.jpg`.
    public var thumbnailUrl: String { imageURL(.square75) }

    /// The image in `size`.
    public func imageURL(_ size: FlickrImageSize) -> String {
        imageHost.url(server: server, id: id, secret: secret, size: size)
    }
}
