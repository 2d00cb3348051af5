import JSON

/// What a test sends requests through: a socket (``TestHTTPClient``, live mode) or the server's request
/// handling in process (``InProcessClient``, router mode). The same assertions run on either.
public protocol HTTPTestClient: Sendable {
    /// Sends a request and returns the whole response; `json`, when given, is the body with
    /// `Content-Type: application/json` (unless `headers` name one).
    func request(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, json: JSONValue?
    ) async throws -> TestHTTPResponse
}

extension HTTPTestClient {
    /// A request without a body, or with `body` bytes.
    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> TestHTTPResponse {
        try await request(method, path, headers: headers, body: body, json: nil)
    }

    /// POST with a JSON body.
    public func post(
        _ path: String, json: JSONValue? = nil, headers: [(String, String)] = []
    ) async throws -> TestHTTPResponse {
        try await request("POST", path, headers: headers, body: nil, json: json)
    }

    /// GET.
    public func get(_ path: String, headers: [(String, String)] = []) async throws -> TestHTTPResponse {
        try await request("GET", path, headers: headers, body: nil, json: nil)
    }
}

extension TestHTTPClient: HTTPTestClient {}
