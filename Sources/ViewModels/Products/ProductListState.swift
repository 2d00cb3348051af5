import JSON
import Services

/// The products shown so far: a ``ProductPage`` whose `items` are those of every page loaded, in order,
/// and whose `page` is the last one loaded.
public typealias ProductList = ProductPage

/// Which page load is in flight.
public enum PageRequest: Sendable, Equatable {
    /// Reload page 1 and replace the items.
    case refresh
    /// Append page `n`.
    case nextPage(Int)
}

/// The whole state of the product list screen.
public struct ProductListState: ViewModelState {
    /// The list, loading state and failure as one value.
    public var list: Loadable<ProductList, PageRequest>
    /// The most recent failure; cleared by the next successful load, kept while loading.
    public var lastError: UpstreamError?

    /// The initial state: nothing loaded.
    public init(list: Loadable<ProductList, PageRequest> = .idle, lastError: UpstreamError? = nil) {
        self.list = list
        self.lastError = lastError
    }

    /// Items on screen.
    public var items: [Product] { list.value?.items ?? [] }
    /// Whether a refresh is in flight.
    public var isRefreshing: Bool { list.pendingRequest == .refresh }
    /// Whether a load-more is in flight.
    public var isLoadingMore: Bool {
        if case .nextPage = list.pendingRequest { return true }
        return false
    }

    /// The API's ProductListState (without `version`, which the state channel adds).
    public static let jsonMembers: [StateMember<ProductListState>] = [
        StateMember("items", { $0.items }, json: { .array($0.map(\.json)) }),
        StateMember("page", { $0.list.value?.page ?? 0 }, json: { .int($0) }),
        StateMember("hasMore", { $0.list.value?.hasMore ?? false }, json: { .bool($0) }),
        StateMember("isRefreshing", { $0.isRefreshing }, json: { .bool($0) }),
        StateMember("isLoadingMore", { $0.isLoadingMore }, json: { .bool($0) }),
        StateMember("lastError", { $0.lastError }, json: { $0?.json ?? .null }),
    ]
}
