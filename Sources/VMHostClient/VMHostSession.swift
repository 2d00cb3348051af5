import Foundation

/// A session on the server and its view models. Cheap to create (`VMHostClient.session(id:)` sends nothing); its
/// view models' `states` share one event stream.
public final class VMHostSession: Sendable {
    /// The session's id: the capability to use it (with authentication, together with the token).
    public let id: String
    /// The Flickr photo search.
    public let search: RemoteViewModel<SearchState>
    /// The paged product list.
    public let products: RemoteViewModel<ProductListState>
    /// The detail screen of a photo.
    public let photo: RemoteViewModel<PhotoState>

    private let api: Client
    let stream: SessionEventStream

    init(id: String, api: Client, stream: SessionEventStream) {
        self.id = id
        self.api = api
        self.stream = stream
        search = RemoteViewModel(sessionID: id, api: api, stream: stream)
        products = RemoteViewModel(sessionID: id, api: api, stream: stream)
        photo = RemoteViewModel(sessionID: id, api: api, stream: stream)
    }

    /// Every view model's current state (`GET /v1/sessions/{id}`).
    public func state() async throws -> SessionState {
        let output = try await Client.run { try await api.getSession(path: .init(id: id)) }
        guard case .ok(let ok) = output else { throw VMHostClientError.invalidResponse(message: "GET session") }
        return try ok.body.json
    }

    /// Ends the session (`DELETE /v1/sessions/{id}`): work in flight is cancelled and its streams end, so the
    /// `states` sequences being iterated throw `sessionNotFound`.
    public func delete() async throws {
        let output = try await Client.run { try await api.deleteSession(path: .init(id: id)) }
        guard case .noContent = output else { throw VMHostClientError.invalidResponse(message: "DELETE session") }
    }
}
