/// An error answer: a status, a snake_case code clients switch on, a human-readable message, and any headers
/// the status calls for.
///
/// Handlers throw these; the server renders them with the ``HTTPErrorResponder`` of its configuration, so the
/// body format (the API's JSON envelope, for vmhost) is the application's policy, not the server's.
public struct HTTPError: Error, Sendable, Equatable {
    /// The HTTP status.
    public var status: Int
    /// The snake_case error code clients switch on.
    public var code: APIErrorCode
    /// Human-readable text.
    public var message: String
    /// Extra response headers (`Allow` for 405).
    public var headers: [HTTPHeader]

    /// Creates an error answer.
    public init(status: Int, code: APIErrorCode, message: String, headers: [HTTPHeader] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }
}

extension HTTPError {
    /// `400 invalid_json`: the body is not JSON.
    public static func invalidJSON(_ detail: String) -> HTTPError {
        HTTPError(status: 400, code: .invalidJSON, message: "request body is not valid JSON: \(detail)")
    }

    /// `400 invalid_field`: a field is missing or of the wrong type; the message names it.
    public static func invalidField(_ field: String, _ problem: String) -> HTTPError {
        HTTPError(status: 400, code: .invalidField, message: "field '\(field)' \(problem)")
    }

    /// `400 invalid_path`: the request target cannot be decoded.
    public static var invalidPath: HTTPError {
        HTTPError(status: 400, code: .invalidPath, message: "malformed request path")
    }

    /// `400 invalid_request`: the request's framing is broken (the server closes the connection after it).
    public static func invalidRequest(_ problem: String) -> HTTPError {
        HTTPError(status: 400, code: .invalidRequest, message: "malformed request: \(problem)")
    }

    /// `404 not_found`: no such route.
    public static func notFound(_ path: String) -> HTTPError {
        HTTPError(status: 404, code: .notFound, message: "no resource at \(path)")
    }

    /// `405 method_not_allowed` with the `Allow` header.
    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return HTTPError(
            status: 405, code: .methodNotAllowed, message: "\(method.rawValue) is not allowed here; use \(allow)",
            headers: [HTTPHeader("Allow", allow)]
        )
    }

    /// `413 body_too_large`.
    public static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(status: 413, code: .bodyTooLarge, message: "request body exceeds \(limit) bytes")
    }

    /// `415 unsupported_media_type`.
    public static func unsupportedMediaType(_ contentType: String) -> HTTPError {
        HTTPError(
            status: 415, code: .unsupportedMediaType,
            message: "Content-Type '\(contentType)' is not supported; send application/json"
        )
    }

    /// `500 internal_error`: a handler failed with an error that is not an ``HTTPError``.
    public static var internalError: HTTPError {
        HTTPError(status: 500, code: .internalError, message: "the server failed to handle the request")
    }

    /// `501 method_not_implemented`: a request method the server does not know (the connection closes after it:
    /// evhttp does not read the body of such a request).
    public static var methodNotImplemented: HTTPError {
        HTTPError(
            status: 501, code: .methodNotImplemented, message: "the request method is not one this server implements"
        )
    }

    /// `403 forbidden_origin`: a `POST` from a page of another origin.
    public static func forbiddenOrigin(_ origin: String) -> HTTPError {
        HTTPError(
            status: 403, code: .forbiddenOrigin,
            message:
                "requests from pages of \(origin) are not allowed; the server's own origin and the allowed ones are")
    }

    /// `503 overloaded`.
    public static func overloaded(_ reason: String) -> HTTPError {
        HTTPError(status: 503, code: .overloaded, message: reason)
    }
}
