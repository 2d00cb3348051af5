import Foundation
import OpenAPIRuntime

/// A client of a vmhost server: creates and attaches to sessions, whose view models are typed, always-current
/// Swift values (`session.search.states`) with typed async commands (`session.search.execute(text:)`).
///
/// ```swift
/// let client = VMHostClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// let session = try await client.createSession()
/// for try await state in session.search.states { render(state) }
/// ```
///
/// It talks HTTP through AsyncHTTPClient on Linux and URLSession on Apple platforms; event streams are read with
/// `Accept-Encoding: gzip`.
public final class VMHostClient: Sendable {
    /// The server's base URL (scheme, host, port; the API's paths start with `/v1`).
    public let baseURL: URL
    let api: Client
    let configuration: VMHostClientConfiguration
    private let streams = SessionStreams()

    /// A client of the server at `baseURL`.
    /// - Parameters:
    ///   - token: when the server requires authentication, returns the JWT to send (`Authorization: Bearer`). It is
    ///     called for every request, and once more after a `401` or an `event: reauth`, so it may refresh.
    ///   - configuration: retries and backoff.
    public convenience init(
        baseURL: URL, token: (@Sendable () async throws -> String)? = nil,
        configuration: VMHostClientConfiguration = .init()
    ) {
        self.init(baseURL: baseURL, token: token, configuration: configuration, transport: DefaultTransport.make())
    }

    /// A client over any transport (tests give a scripted one).
    package init(
        baseURL: URL, token: (@Sendable () async throws -> String)? = nil,
        configuration: VMHostClientConfiguration = .init(), transport: any ClientTransport
    ) {
        self.baseURL = baseURL
        self.configuration = configuration
        api = Client(
            serverURL: baseURL, transport: transport,
            middlewares: [
                RequestHeadersMiddleware(),
                RequestPolicyMiddleware(token: token, configuration: configuration),
            ])
    }

    /// Creates a session (`POST /v1/sessions`).
    public func createSession() async throws -> VMHostSession {
        let output = try await Client.run { try await api.createSession() }
        guard case .created(let created) = output else {
            throw VMHostClientError.invalidResponse(message: "POST /v1/sessions")
        }
        return session(id: try created.body.json.id)
    }

    /// The session with `id`, without a request (a session created earlier, by this process or another). Every
    /// session object of one id that this client hands out shares one event stream.
    public func session(id: String) -> VMHostSession {
        let stream = streams.stream(for: id) {
            SessionEventStream(sessionID: id, api: api, configuration: configuration)
        }
        return VMHostSession(id: id, api: api, stream: stream)
    }
}
