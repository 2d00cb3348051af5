/// The typed state of one server view model (API.md), generated from the OpenAPI document.
public typealias SearchState = Components.Schemas.SearchState
/// The product list's state (API.md, "Product list view model").
public typealias ProductListState = Components.Schemas.ProductListState
/// The photo detail screen's state (API.md, "Photo view model").
public typealias PhotoState = Components.Schemas.PhotoState
/// A session and the current state of each of its view models (`GET /v1/sessions/{id}`).
public typealias SessionState = Components.Schemas.Session

/// A state a `RemoteViewModel` streams: decodable from the API's JSON, with the `version` that orders its changes and
/// the name of its view model on the multiplexed stream (`search.snapshot`, `search.patch`, ...).
public protocol RemoteState: Decodable, Sendable {
    /// The view model's name in paths and event names.
    static var viewModelName: String { get }
    /// Starts at 1 and strictly increases with every change of the view model.
    var version: Int { get }
}

extension SearchState: RemoteState {
    public static var viewModelName: String { "search" }
}

extension ProductListState: RemoteState {
    public static var viewModelName: String { "products" }
}

extension PhotoState: RemoteState {
    public static var viewModelName: String { "photo" }
}

/// A command the server accepted (`202`): the view model's version after the command; what it started (a search, a
/// page) arrives as later versions on `states`.
public struct Accepted: Sendable, Hashable {
    /// The view model's version once the command ran.
    public var version: Int

    /// An acceptance at `version`.
    public init(version: Int) {
        self.version = version
    }
}
