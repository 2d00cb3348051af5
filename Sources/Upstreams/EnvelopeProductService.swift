import EventLoop
import HTTPClient
import JSON
import Services

/// The `envelope` product API: `GET {base}/products?page=N&pageSize=M` answering
/// `{"success", "message", "data": [...], "page": {"index", "size", "total"}}`.
@LoopActor
public final class EnvelopeProductService: ProductService {
    private let fetcher: SharedFetcher
    private let baseURL: String
    private let pageSize: Int
    private let recorder: UpstreamRecorder

    /// Creates the service.
    /// - Parameters:
    ///   - baseURL: the base that `/products?...` is appended to.
    ///   - pageSize: items per page.
    ///   - recorder: receives one record per call (metrics).
    public init(fetcher: SharedFetcher, baseURL: String, pageSize: Int = 20, recorder: UpstreamRecorder = .none) {
        self.fetcher = fetcher
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.pageSize = pageSize
        self.recorder = recorder
    }

    /// Creates the service on its own ``SharedFetcher`` over `client`.
    public convenience init(client: HTTPClient, baseURL: String, pageSize: Int = 20, recorder: UpstreamRecorder = .none)
    {
        self.init(fetcher: SharedFetcher(client: client), baseURL: baseURL, pageSize: pageSize, recorder: recorder)
    }

    public func fetchPage(_ page: Int) async throws -> ProductPage {
        try await recordingUpstreamCall(service: "products", recorder: recorder) {
            let json = try await fetchJSON(
                "\(baseURL)/products?page=\(page)&pageSize=\(pageSize)", fetcher: fetcher, service: "product API",
                cacheable: false
            )
            return try Self.decode(json, requestedPage: page)
        }
    }

    /// Maps an envelope response to a page (public for tests).
    /// - Throws: ``UpstreamError`` `business` for `success: false`, `decoding` for a malformed shape.
    nonisolated public static func decode(_ json: JSONValue, requestedPage: Int) throws(UpstreamError) -> ProductPage {
        guard let success = json["success"]?.boolValue else {
            throw .decoding("missing 'success'", service: "product API")
        }
        guard success else {
            let message = json["message"]?.stringValue ?? "the product API reported a failure"
            throw UpstreamError(kind: .business, message: message)
        }
        guard let data = json["data"]?.arrayValue else {
            throw .decoding("missing 'data' list", service: "product API")
        }
        var items: [Product] = []
        items.reserveCapacity(data.count)
        for (index, entry) in data.enumerated() {
            guard let item = product(from: entry) else {
                throw .decoding("item \(index) lacks ProductId or ProductName", service: "product API")
            }
            items.append(item)
        }
        let pageInfo = json["page"]
        let index = pageInfo?["index"]?.lenientInt ?? requestedPage
        let size = pageInfo?["size"]?.lenientInt ?? data.count
        guard let total = pageInfo?["total"]?.lenientInt else {
            throw .decoding("missing 'page.total'", service: "product API")
        }
        return ProductPage(items: items, page: index, hasMore: index * size < total)
    }

    nonisolated private static func product(from entry: JSONValue) -> Product? {
        guard let id = entry["ProductId"]?.lenientString, let name = entry["ProductName"]?.lenientString else {
            return nil
        }
        return Product(
            id: id, title: name, subtitle: entry["ProductBank"]?.lenientString ?? "",
            price: ProductFormatting.groupedAmount(entry["ProductAmt"]?.lenientDouble),
            badge: entry["SaleStatusCn"]?.lenientString ?? "",
            detail: ProductFormatting.termDetail(
                term: entry["ProductTerm"]?.lenientString, profit: entry["ProductProfit"]?.lenientString
            ),
            imageUrl: nil
        )
    }
}
