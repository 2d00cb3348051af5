import EventLoop

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
