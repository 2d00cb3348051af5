import HTTPServer
import JSON
import Sessions
import ViewModels

// The decoding of request parameters, as pure functions: `Routes` calls them with what the request carries,
// and the fuzz target (`Sources/VMHostFuzz`) calls them with arbitrary input. Command bodies are decoded by
// each view model's commands (`ViewModels/*/…Commands.swift`); their rejections map to the API's errors here.

extension HTTPError {
    /// The API's answer to a refused command: `400 invalid_field` or `409 command_disabled`.
    package init(_ rejection: CommandRejection) {
        switch rejection {
        case .invalidField(let field, let problem): self = .invalidField(field, problem)
        case .disabled(let disabled): self.init(status: 409, code: .commandDisabled, message: disabled.reason)
        case .rateLimited(let seconds):
            self.init(
                status: 429, code: .rateLimited,
                message: "the session has used its budget of upstream loads for now; try again in \(seconds) s",
                headers: [HTTPHeader("Retry-After", "\(seconds)")])
        }
    }
}

extension StreamFormat {
    /// The format an event stream asks for with its `format` query parameter (`nil` when absent).
    /// - Throws: `400 invalid_field` for a value other than `patch(es)` or `snapshot(s)`.
    package init(query value: String?) throws(HTTPError) {
        switch value {
        case nil, "patch", "patches": self = .patches
        case "snapshot", "snapshots": self = .snapshots
        case let other?: throw .invalidField("format", "must be 'snapshot' or omitted, not '\(other)'")
        }
    }
}
