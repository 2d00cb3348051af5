import EventLoop

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

/// One page of a Flickr photo search.
public struct FlickrSearchPage: Sendable, Equatable {
    /// The 1-based page number.
    public var page: Int
    /// The number of pages.
    public var pages: Int
    /// The number of matching photos.
    public var total: Int
    /// The photos of this page.
    public var photos: [FlickrPhoto]

    /// Creates a page.
    public init(page: Int, pages: Int, total: Int, photos: [FlickrPhoto]) {
        self.page = page
        self.pages = pages
        self.total = total
        self.photos = photos
    }
}

/// The model layer of the photo screens: the Flickr methods the search and photo view models use.
@LoopActor
public protocol FlickrService: AnyObject, Sendable {
    /// `flickr.photos.search` with `sort=interestingness-desc`.
    /// - Throws: ``UpstreamError`` or `CancellationError`.
    func search(text: String, page: Int) async throws -> FlickrSearchPage

    /// The `total` of `flickr.photos.getFavorites`.
    /// - Throws: ``UpstreamError`` or `CancellationError`.
    func favoritesCount(photoID: String) async throws -> Int

    /// The number of comments of `flickr.photos.comments.getList` (a missing `comment` list counts 0).
    /// - Throws: ``UpstreamError`` or `CancellationError`.
    func commentsCount(photoID: String) async throws -> Int

    /// The photo's details from `flickr.photos.getInfo`, mapped as API.md's PhotoDetail.
    /// - Throws: ``UpstreamError`` (`business` for Flickr's `stat: fail`, such as code 1 for an unknown photo)
    ///   or `CancellationError` (the transfer is aborted).
    func photoInfo(photoID: String) async throws -> PhotoDetail

    /// The photo's comments from `flickr.photos.comments.getList`, oldest first (a missing `comment` list is
    /// empty), mapped as API.md's PhotoComment.
    /// - Throws: ``UpstreamError`` or `CancellationError` (the transfer is aborted).
    func photoComments(photoID: String) async throws -> [PhotoComment]
}
