import EventLoop

/// The model layer of the product list: fetch one page.
@LoopActor
public protocol ProductService: AnyObject {
    /// Fetches page `page` (1-based).
    /// - Throws: ``UpstreamError`` or `CancellationError`.
    func fetchPage(_ page: Int) async throws -> ProductPage
}
