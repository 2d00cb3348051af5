import Foundation

/// One view model of a session, held by the server: its typed `states` and its commands (in extensions per state
/// type: `session.search.execute(text:)`, `session.products.refresh()`, `session.photo.open(photoID:)`).
///
/// Every command carries a fresh `Idempotency-Key` and is retried with the same key on connection errors, `502`,
/// `503` and `429` (after `Retry-After`), so a retried command never runs twice.
public struct RemoteViewModel<State: RemoteState>: Sendable {
    /// The session this view model belongs to.
    public let sessionID: String
    let api: Client
    let stream: SessionEventStream

    /// The snapshot first, then every later version, in order, resumed across dropped connections (see
    /// ``RemoteStates``).
    public var states: RemoteStates<State> { RemoteStates(stream: stream) }

    /// A key for one command: 128 random bits, the same on every retry of that command.
    static func idempotencyKey() -> String { UUID().uuidString }

    /// `Prefer: wait=N`, N whole seconds (rounded up, 1 to 30, the server's bound).
    static func prefer(wait: Duration?) -> String? {
        guard let wait else { return nil }
        let (seconds, attoseconds) = wait.components
        let whole = seconds + (attoseconds > 0 ? 1 : 0)
        return "wait=\(min(max(whole, 1), 30))"
    }

    /// The state of an answer that must carry one (a `200`), or the `Accepted` version of a `202`.
    static func unexpected(_ what: String) -> VMHostClientError {
        .invalidResponse(message: "unexpected answer to \(what)")
    }
}

extension RemoteViewModel where State == SearchState {
    /// Sets the search text (`POST .../search/text`); with `autoSearch`, a search runs 300 ms after the last change
    /// when `canSearch`.
    @discardableResult
    public func setText(_ text: String, autoSearch: Bool = false) async throws -> SearchState {
        let output = try await Client.run {
            try await api.setSearchText(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()),
                body: .json(.init(text: text, autoSearch: autoSearch)))
        }
        guard case .ok(let ok) = output, case .json(let state) = ok.body else { throw Self.unexpected("search/text") }
        return state
    }

    /// Starts page 1 of a search (after setting `text` when given); a search in flight is cancelled first.
    /// Throws `commandDisabled` unless `canSearch`.
    @discardableResult
    public func execute(text: String? = nil) async throws -> Accepted {
        try Self.accepted(await executeOutput(text: text, wait: nil), "search/execute")
    }

    /// Starts a search and answers with the state once it has loaded, or once `wait` (at most 30 s) has passed.
    public func execute(text: String? = nil, wait: Duration) async throws -> SearchState {
        try Self.state(await executeOutput(text: text, wait: wait), "search/execute")
    }

    /// Appends the next page. Throws `commandDisabled` unless results are loaded, more exist and nothing is loading.
    @discardableResult
    public func loadMore() async throws -> Accepted {
        let output = try await Client.run {
            try await api.loadMoreSearchResults(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()))
        }
        switch output {
        case .accepted(let accepted): return Accepted(version: try accepted.body.json.version)
        case .ok(let ok): return Accepted(version: try ok.body.json.version)
        default: throw Self.unexpected("search/load-more")
        }
    }

    /// Cancels the search in flight: the results return to what they were before it.
    @discardableResult
    public func cancel() async throws -> SearchState {
        let output = try await Client.run {
            try await api.cancelSearch(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()))
        }
        guard case .ok(let ok) = output, case .json(let state) = ok.body else { throw Self.unexpected("search/cancel") }
        return state
    }

    /// Loads favorites and comment counts for the photos on screen (once per photo).
    @discardableResult
    public func visible(photoIDs: [String]) async throws -> Accepted {
        let output = try await Client.run {
            try await api.setVisiblePhotos(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()),
                body: .json(.init(photoIds: photoIDs)))
        }
        switch output {
        case .accepted(let accepted): return Accepted(version: try accepted.body.json.version)
        case .ok(let ok): return Accepted(version: try ok.body.json.version)
        default: throw Self.unexpected("search/visible")
        }
    }

    private func executeOutput(text: String?, wait: Duration?) async throws -> Operations.ExecuteSearch.Output {
        try await Client.run {
            try await api.executeSearch(
                path: .init(id: sessionID),
                headers: .init(prefer: Self.prefer(wait: wait), idempotencyKey: Self.idempotencyKey()),
                body: text.map { .json(.init(text: $0)) })
        }
    }

    private static func accepted(_ output: Operations.ExecuteSearch.Output, _ what: String) throws -> Accepted {
        switch output {
        case .accepted(let accepted): return Accepted(version: try accepted.body.json.version)
        case .ok(let ok): return Accepted(version: try ok.body.json.version)
        default: throw unexpected(what)
        }
    }

    private static func state(_ output: Operations.ExecuteSearch.Output, _ what: String) throws -> SearchState {
        guard case .ok(let ok) = output else { throw unexpected(what) }
        return try ok.body.json
    }
}

extension RemoteViewModel where State == ProductListState {
    /// Loads page 1 again and replaces the items on success (they stay visible meanwhile).
    @discardableResult
    public func refresh() async throws -> Accepted {
        let output = try await Client.run {
            try await api.refreshProducts(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()))
        }
        switch output {
        case .accepted(let accepted): return Accepted(version: try accepted.body.json.version)
        case .ok(let ok): return Accepted(version: try ok.body.json.version)
        default: throw Self.unexpected("products/refresh")
        }
    }

    /// Appends the next page. Throws `commandDisabled` unless a page is loaded, more exist and nothing is loading.
    @discardableResult
    public func loadMore() async throws -> Accepted {
        let output = try await Client.run {
            try await api.loadMoreProducts(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()))
        }
        switch output {
        case .accepted(let accepted): return Accepted(version: try accepted.body.json.version)
        case .ok(let ok): return Accepted(version: try ok.body.json.version)
        default: throw Self.unexpected("products/load-more")
        }
    }

    /// Aborts the load in flight; the items stay as they are.
    @discardableResult
    public func cancel() async throws -> ProductListState {
        let output = try await Client.run {
            try await api.cancelProducts(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()))
        }
        guard case .ok(let ok) = output, case .json(let state) = ok.body else {
            throw Self.unexpected("products/cancel")
        }
        return state
    }
}

extension RemoteViewModel where State == PhotoState {
    /// Opens a photo: its details and comments load at once (opening another cancels the previous loads).
    @discardableResult
    public func open(photoID: String) async throws -> Accepted {
        let output = try await Client.run {
            try await api.openPhoto(
                path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()),
                body: .json(.init(photoId: photoID)))
        }
        switch output {
        case .accepted(let accepted): return Accepted(version: try accepted.body.json.version)
        case .ok(let ok): return Accepted(version: try ok.body.json.version)
        default: throw Self.unexpected("photo/open")
        }
    }

    /// Closes the photo: loads in flight are cancelled and the state returns to the initial one.
    @discardableResult
    public func close() async throws -> PhotoState {
        let output = try await Client.run {
            try await api.closePhoto(path: .init(id: sessionID), headers: .init(idempotencyKey: Self.idempotencyKey()))
        }
        guard case .ok(let ok) = output, case .json(let state) = ok.body else { throw Self.unexpected("photo/close") }
        return state
    }
}
