import JSON

/// What a test sends requests through: a socket (``TestHTTPClient``, live mode) or the server's request
/// handling in process (``InProcessClient``, router mode). The same assertions run on either.
public protocol HTTPTestClient: Sendable {
    /// Sends a request and returns the whole response; `json`, when given, is the body with
    /// `Content-Type: application/json` (unless `headers` name one).
    func send(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, json: JSONValue?
    ) async throws -> TestHTTPResponse
}

extension HTTPTestClient {
    /// Sends a request (``send(_:_:headers:body:json:)`` with defaults).
    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        json: JSONValue? = nil
    ) async throws -> TestHTTPResponse {
        try await send(method, path, headers: headers, body: body, json: json)
    }

    /// POST with a JSON body.
    public func post(
        _ path: String, json: JSONValue? = nil, headers: [(String, String)] = []
    ) async throws -> TestHTTPResponse {
        try await send("POST", path, headers: headers, body: nil, json: json)
    }

    /// GET.
    public func get(_ path: String, headers: [(String, String)] = []) async throws -> TestHTTPResponse {
        try await send("GET", path, headers: headers, body: nil, json: nil)
    }
}

extension TestHTTPClient: HTTPTestClient {
    public func send(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, json: JSONValue?
    ) async throws -> TestHTTPResponse {
        try await request(method, path, headers: headers, body: body, json: json)
    }
}
