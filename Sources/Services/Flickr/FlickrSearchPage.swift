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
