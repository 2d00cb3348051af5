import JSON

/// Why a command was refused before it changed anything.
///
/// The host maps these to the API's errors: `400 invalid_field`, `409 command_disabled` and `429 rate_limited`.
public enum CommandRejection: Error, Sendable, Equatable {
    /// A body field is missing or of the wrong type (`400 invalid_field`); `problem` completes
    /// "field 'name' …".
    case invalidField(_ field: String, _ problem: String)
    /// The command is disabled in the current state (`409 command_disabled`).
    case disabled(CommandDisabled)
    /// The command would start an upstream load and the session's ``UpstreamBudget`` is empty
    /// (`429 rate_limited`, with `Retry-After`).
    case rateLimited(retryAfterSeconds: Int)

    /// `invalidField` for a field that must be a string.
    static func notAString(_ field: String) -> CommandRejection { .invalidField(field, "must be a string") }
}

/// Shared field readers of command bodies.
package enum CommandFields {
    /// The boolean `field` of `body`: nil when absent or null.
    /// - Throws: ``CommandRejection/invalidField(_:_:)`` when present with another type.
    package static func optionalBool(_ body: JSONObject, _ field: String) throws(CommandRejection) -> Bool? {
        guard let value = body[field], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw .invalidField(field, "must be a boolean") }
        return bool
    }

    /// The string `field` of `body`.
    /// - Throws: ``CommandRejection/invalidField(_:_:)`` when absent or not a string.
    package static func requiredString(_ body: JSONObject, _ field: String) throws(CommandRejection) -> String {
        guard let string = body[field]?.stringValue else { throw .notAString(field) }
        return string
    }
}
