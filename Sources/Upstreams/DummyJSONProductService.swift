import EventLoop
import HTTPClient
import JSON
import Services

/// The `dummyjson` product API (the shape of the public DummyJSON API): `GET {base}/products?limit=M&skip=K`
/// answering `{"products": [...], "total", "skip", "limit"}`.
@LoopActor
public final class DummyJSONProductService: ProductService {
    nonisolated private static let service = "product API"

    private let fetcher: SharedFetcher
    private let baseURL: String
    private let pageSize: Int
    private let recorder: UpstreamRecorder

    /// Creates the service.
    /// - Parameters:
    ///   - baseURL: the base that `/products?...` is appended to.
    ///   - pageSize: items per page (`limit`).
    ///   - recorder: receives one record per call (metrics), under the service name `products`.
    public init(fetcher: SharedFetcher, baseURL: String, pageSize: Int = 20, recorder: UpstreamRecorder = .none) {
        self.fetcher = fetcher
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.pageSize = max(pageSize, 1)
        self.recorder = recorder
    }

    /// Creates the service on its own ``SharedFetcher`` over `client`.
    public convenience init(client: HTTPClient, baseURL: String, pageSize: Int = 20, recorder: UpstreamRecorder = .none)
    {
        self.init(fetcher: SharedFetcher(client: client), baseURL: baseURL, pageSize: pageSize, recorder: recorder)
    }

    /// Fetches page `page` (1-based) as `limit=pageSize&skip=(page-1)*pageSize`.
    public func fetchPage(_ page: Int) async throws -> ProductPage {
        let skip = max(page - 1, 0) * pageSize
        return try await recordingUpstreamCall(service: "products", recorder: recorder) {
            let json = try await fetchJSON(
                "\(baseURL)/products?limit=\(pageSize)&skip=\(skip)", fetcher: fetcher, service: Self.service,
                cacheable: false
            )
            return try Self.decode(json, requestedPage: page)
        }
    }

    /// Maps a DummyJSON response to a page numbered `requestedPage` (public for tests).
    /// - Throws: ``UpstreamError`` `decoding` for a malformed shape (DummyJSON has no in-body failure).
    nonisolated public static func decode(_ json: JSONValue, requestedPage: Int) throws(UpstreamError) -> ProductPage {
        guard let list = json["products"]?.arrayValue else {
            throw .decoding("missing 'products' list", service: service)
        }
        guard let total = json["total"]?.lenientInt, let skip = json["skip"]?.lenientInt else {
            throw .decoding("missing numeric 'total' or 'skip'", service: service)
        }
        var items: [Product] = []
        items.reserveCapacity(list.count)
        for (index, entry) in list.enumerated() {
            guard let item = product(from: entry) else {
                throw .decoding("product \(index) lacks id or title", service: service)
            }
            items.append(item)
        }
        return ProductPage(items: items, page: requestedPage, hasMore: skip + list.count < total)
    }

    nonisolated private static func product(from entry: JSONValue) -> Product? {
        guard let id = entry["id"]?.lenientString, let title = entry["title"]?.stringValue else { return nil }
        let subtitle = nonEmpty(entry["brand"]?.stringValue) ?? entry["category"]?.stringValue ?? ""
        return Product(
            id: id, title: title, subtitle: subtitle,
            price: ProductFormatting.dollarPrice(entry["price"]?.lenientDouble),
            badge: ProductFormatting.stockBadge(stock: entry["stock"]?.lenientInt),
            detail: ProductFormatting.ratingDetail(
                rating: entry["rating"].flatMap(plainNumber),
                discountPercent: entry["discountPercentage"]?.lenientDouble
            ),
            // NB: it becomes an image's `src`: `https` only, else no image.
            imageUrl: entry["thumbnail"]?.stringValue.flatMap { SafeURL.isHTTPS($0) ? $0 : nil }
        )
    }

    /// A number as given: `4.94` → `"4.94"`, `5` and `5.0` → `"5"`; a string holding a number stays as written.
    nonisolated static func plainNumber(_ value: JSONValue) -> String? {
        switch value {
        case .int(let int):
            return String(int)
        case .double(let double):
            guard double.isFinite else { return nil }
            if let integral = Int(exactly: double) { return String(integral) }
            return String(double)
        case .string(let string):
            return value.lenientDouble != nil ? String(string.trimmingSpaces) : nil
        default:
            return nil
        }
    }

    nonisolated private static func nonEmpty(_ string: String?) -> String? {
        guard let string, !string.isEmpty else { return nil }
        return string
    }
}
