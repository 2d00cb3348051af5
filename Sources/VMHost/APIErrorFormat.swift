import HTTPServer
import JSON

extension HTTPErrorResponder {
    /// The API's error format (API.md, "Conventions"): `{"error": {"code": "...", "message": "..."}}` as
    /// `application/json` with the error's status. vmhost's server answers every error with it.
    package static let apiJSON = HTTPErrorResponder { error in
        .json(
            ["error": ["code": .string(error.code.rawValue), "message": .string(error.message)]], status: error.status)
    }
}
