import JSON

/// An error answer in the API's format: `{"error": {"code": "...", "message": "..."}}` with a status.
///
/// Handlers throw these; the server turns them into responses.
public struct HTTPError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The snake_case error code clients switch on.
    public var code: String
    /// Human-readable text.
    public var message: String
    /// Extra response headers (`Allow` for 405).
    public var headers: [HTTPHeader]

    /// Creates an error answer.
    public init(status: Int, code: String, message: String, headers: [HTTPHeader] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The response carrying this error.
    public var response: HTTPResponse {
        let body: JSONValue = ["error": ["code": .string(code), "message": .string(message)]]
        var response = HTTPResponse.json(body, status: status)
        response.headers.append(contentsOf: headers)
        return response
    }
}

extension HTTPError {
    /// `400 invalid_json`: the body is not JSON.
    public static func invalidJSON(_ detail: String) -> HTTPError {
        HTTPError(status: 400, code: "invalid_json", message: "request body is not valid JSON: \(detail)")
    }

    /// `400 invalid_field`: a field is missing or of the wrong type; the message names it.
    public static func invalidField(_ field: String, _ problem: String) -> HTTPError {
        HTTPError(status: 400, code: "invalid_field", message: "field '\(field)' \(problem)")
    }

    /// `404 not_found`: no such route.
    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(status: 404, code: "not_found", message: "no resource at \(path)")
    }

    /// `405 method_not_allowed` with the `Allow` header.
    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            status: 405, code: "method_not_allowed", message: "\(method.rawValue) is not allowed here; use \(allow)",
            headers: [HTTPHeader("Allow", allow)]
        )
    }

    /// `413 body_too_large`.
    public static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: "body_too_large", message: "request body exceeds \(limit) bytes")
    }

    /// `415 unsupported_media_type`.
    public static func unsupportedMediaType(_ contentType: String) -> HTTPError {
        HTTPError(
            status: 415, code: "unsupported_media_type",
            message: "Content-Type '\(contentType)' is not supported; send application/json"
        )
    }

    /// `503 overloaded`.
    public static func overloaded(_ reason: String) -> HTTPError {
        HTTPError(status: 503, code: "overloaded", message: reason)
    }
}
