import JSON
import Services

/// A value that is loaded from upstream, as one enum instead of flags that could contradict each other.
///
/// `Request` says what is being loaded (a search text and page, a product page), so the view model can
/// tell a refresh from a load-more without a second flag.
public enum Loadable<Value: Sendable & Equatable, Request: Sendable & Equatable>: Sendable, Equatable {
    /// Nothing loaded, nothing loading.
    case idle
    /// `request` is in flight; `previous` stays visible meanwhile.
    case loading(Request, previous: Value?)
    /// The value arrived.
    case loaded(Value)
    /// The load failed; `previous` stays visible.
    case failed(UpstreamError, previous: Value?)

    /// The value to show: the loaded one, or the one kept while loading or after a failure.
    public var value: Value? {
        switch self {
        case .idle: nil
        case .loading(_, let previous): previous
        case .loaded(let value): value
        case .failed(_, let previous): previous
        }
    }

    /// The request in flight, if any.
    public var pendingRequest: Request? {
        if case .loading(let request, _) = self { return request }
        return nil
    }

    /// The failure, when the last load failed.
    public var error: UpstreamError? {
        if case .failed(let error, _) = self { return error }
        return nil
    }

    /// The API's Loadable object: `{"status", "value", "error"}`.
    public func json(_ valueJSON: (Value) -> JSONValue) -> JSONValue {
        let status: String
        switch self {
        case .idle: status = "idle"
        case .loading: status = "loading"
        case .loaded: status = "loaded"
        case .failed: status = "failed"
        }
        return [
            "status": .string(status),
            "value": value.map(valueJSON) ?? .null,
            "error": error?.json ?? .null,
        ]
    }
}
