/// Every error code the server answers with (API.md, "Conventions", and the server's own): the one list of them.
///
/// `OpenAPIDocumentTests` checks it against the OpenAPI document (every code there is one of these, and each of
/// these is there) and against the web client (every code it switches on is one of these).
public enum APIErrorCode: String, CaseIterable, Sendable {
    case invalidJSON = "invalid_json"
    case invalidField = "invalid_field"
    case invalidPath = "invalid_path"
    /// Broken framing, or a head evhttp cannot parse.
    case invalidRequest = "invalid_request"
    case unauthorized
    case forbiddenOrigin = "forbidden_origin"
    case notFound = "not_found"
    case sessionNotFound = "session_not_found"
    case methodNotAllowed = "method_not_allowed"
    case commandDisabled = "command_disabled"
    case bodyTooLarge = "body_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    /// An `Expect` other than `100-continue`.
    case expectationFailed = "expectation_failed"
    case idempotencyKeyReused = "idempotency_key_reused"
    case tooManySessions = "too_many_sessions"
    case tooManyStreams = "too_many_streams"
    case rateLimited = "rate_limited"
    /// A bug: a handler failed.
    case internalError = "internal_error"
    case methodNotImplemented = "method_not_implemented"
    case overloaded
}
