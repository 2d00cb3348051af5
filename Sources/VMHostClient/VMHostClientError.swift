import Foundation

/// What a `VMHostClient` call throws: the API's error answers (API.md, "Conventions") as cases a caller can switch
/// on, and failures to reach the server.
///
/// Every API error code maps to one case: `session_not_found` to ``sessionNotFound``, `command_disabled` to
/// ``commandDisabled(message:)``, `unauthorized` to ``unauthorized``, the three `429`s (`too_many_sessions`,
/// `too_many_streams`, `rate_limited`) to ``rateLimited(retryAfter:)``, `overloaded` to
/// ``overloaded(retryAfter:)``, and the codes that say the request itself was wrong (`invalid_json`,
/// `invalid_field`, `not_found`, `method_not_allowed`, `body_too_large`, `unsupported_media_type`,
/// `idempotency_key_reused`, `forbidden_origin`) to ``invalidRequest(code:message:)``. A code the client does not
/// know (a newer server) is ``server(status:code:message:)``.
public enum VMHostClientError: Error, Sendable, CustomStringConvertible {
    /// `404 session_not_found`: the session never existed, expired, was deleted, or belongs to another user.
    case sessionNotFound
    /// `409 command_disabled`: the view model's state does not allow the command now; the message says why.
    case commandDisabled(message: String)
    /// A `4xx` for a request the server cannot take as sent, with the API's code and message.
    case invalidRequest(code: String, message: String)
    /// `401 unauthorized` again after `token` was asked for a fresh token once.
    case unauthorized
    /// A `429` still refused after the client's retries; `retryAfter` is the server's `Retry-After`.
    case rateLimited(retryAfter: Duration?)
    /// `503 overloaded` still refused after the client's retries (a draining node, a journal that cannot load the
    /// session right now).
    case overloaded(retryAfter: Duration?)
    /// Another error answer: a `5xx` other than `503`, or a code this client does not know.
    case server(status: Int, code: String, message: String)
    /// The answer could not be read as the API describes it (a state that does not decode, a patch that does not
    /// apply is never thrown: the stream starts again).
    case invalidResponse(message: String)
    /// The server could not be reached, or the connection broke, after the client's retries.
    case transport(any Error)

    /// The API's error code of the answer behind this error, when there was one.
    public var code: String? {
        switch self {
        case .sessionNotFound: "session_not_found"
        case .commandDisabled: "command_disabled"
        case .invalidRequest(let code, _): code
        case .unauthorized: "unauthorized"
        case .rateLimited: "rate_limited"
        case .overloaded: "overloaded"
        case .server(_, let code, _): code
        case .invalidResponse, .transport: nil
        }
    }

    public var description: String {
        switch self {
        case .sessionNotFound: "session not found"
        case .commandDisabled(let message): "command disabled: \(message)"
        case .invalidRequest(let code, let message): "invalid request (\(code)): \(message)"
        case .unauthorized: "unauthorized"
        case .rateLimited(let retryAfter): "rate limited" + (retryAfter.map { ", retry after \($0)" } ?? "")
        case .overloaded(let retryAfter): "server overloaded" + (retryAfter.map { ", retry after \($0)" } ?? "")
        case .server(let status, let code, let message): "server error \(status) (\(code)): \(message)"
        case .invalidResponse(let message): "invalid response: \(message)"
        case .transport(let error): "transport error: \(error)"
        }
    }

    /// The error for an API error answer: its status, its envelope's code and message, its `Retry-After`.
    static func answer(status: Int, code: String, message: String, retryAfter: Duration?) -> VMHostClientError {
        switch code {
        case "session_not_found": return .sessionNotFound
        case "command_disabled": return .commandDisabled(message: message)
        case "unauthorized": return .unauthorized
        case "too_many_sessions", "too_many_streams", "rate_limited": return .rateLimited(retryAfter: retryAfter)
        case "overloaded": return .overloaded(retryAfter: retryAfter)
        case "invalid_json", "invalid_field", "invalid_path", "not_found", "method_not_allowed", "body_too_large",
            "unsupported_media_type", "idempotency_key_reused", "forbidden_origin":
            return .invalidRequest(code: code, message: message)
        default:
            switch status {
            case 401: return .unauthorized
            case 404: return .sessionNotFound
            case 409: return .commandDisabled(message: message)
            case 429: return .rateLimited(retryAfter: retryAfter)
            case 503: return .overloaded(retryAfter: retryAfter)
            default: return .server(status: status, code: code, message: message)
            }
        }
    }
}
