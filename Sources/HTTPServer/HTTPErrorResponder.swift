/// How a server renders an ``HTTPError``: the error format is the application's policy, handed in with
/// ``HTTPServerConfiguration/errorResponder``.
///
/// The server uses it for every error it answers: those handlers throw, and its own refusals (no route, wrong
/// method, body too large, wrong media type, malformed target or framing, connection limit, a failed handler).
public struct HTTPErrorResponder: Sendable {
    private let render: @Sendable (HTTPError) -> HTTPResponse

    /// A responder rendering each error with `render`; the server appends the error's own headers (`Allow`).
    public init(_ render: @escaping @Sendable (HTTPError) -> HTTPResponse) {
        self.render = render
    }

    /// The response for `error`: the rendered response, then the error's headers.
    public func response(for error: HTTPError) -> HTTPResponse {
        var response = render(error)
        response.headers.append(contentsOf: error.headers)
        return response
    }

    /// `code: message` as `text/plain`: the default, for servers whose clients read no error format.
    public static let plainText = HTTPErrorResponder { error in
        HTTPResponse(
            status: error.status, headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")],
            body: Array("\(error.code.rawValue): \(error.message)\n".utf8)
        )
    }
}
