import JSON

/// The one error channel of the view models: every upstream failure becomes one of these.
///
/// Serialised as the API's Error object: `{"kind", "message", "status", "code"}`.
public struct UpstreamError: Error, Sendable, Equatable {
    /// What went wrong, from the client's point of view.
    public enum Kind: String, Sendable {
        /// No response: refused, unresolvable, timed out, reset, too large.
        case network
        /// The upstream answered with an HTTP error status.
        case upstream
        /// The upstream answered 200 but reported a failure in the body (`success: false`, `stat: fail`).
        case business
        /// The body could not be understood.
        case decoding
    }

    /// What went wrong.
    public var kind: Kind
    /// A message for people (never containing a secret such as an API key).
    public var message: String
    /// The upstream HTTP status, when there was one.
    public var status: Int?
    /// The upstream's own error code, when it gave one.
    public var code: Int?

    /// Creates an error.
    public init(kind: Kind, message: String, status: Int? = nil, code: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.code = code
    }

    /// The API's Error object.
    public var json: JSONValue {
        [
            "kind": .string(kind.rawValue),
            "message": .string(message),
            "status": status.map { .int($0) } ?? .null,
            "code": code.map { .int($0) } ?? .null,
        ]
    }

    /// An `upstream` error for an HTTP error status.
    public static func httpStatus(_ status: Int, service: String) -> UpstreamError {
        UpstreamError(kind: .upstream, message: "\(service) answered HTTP \(status)", status: status)
    }

    /// A `decoding` error.
    public static func decoding(_ detail: String, service: String) -> UpstreamError {
        UpstreamError(kind: .decoding, message: "\(service) sent a response that could not be read: \(detail)")
    }
}
