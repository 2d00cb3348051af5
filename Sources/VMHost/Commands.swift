import HTTPServer
import JSON
import Sessions

// The decoding and validation of request bodies and parameters, as pure functions: `Routes` calls them
// with what the request carries, and the fuzz target (`Sources/VMHostFuzz`) calls them with arbitrary
// input. Every failure is a `400` ``HTTPError`` naming the field.

/// The body of `POST /v1/sessions/{id}/search/text`: `{"text": String, "autoSearch": Bool?}`.
package struct SearchTextCommand: Sendable, Equatable {
    /// The new search text (required).
    package var text: String
    /// Whether a search runs after the debounce delay (default `false`).
    package var autoSearch: Bool

    /// Decodes and validates the body object.
    /// - Throws: `400 invalid_field` when `text` is not a string or `autoSearch` is neither a boolean nor null.
    package init(body: JSONObject) throws(HTTPError) {
        guard let text = body["text"]?.stringValue else { throw HTTPError.invalidField("text", "must be a string") }
        self.text = text
        autoSearch = try CommandFields.optionalBool(body, "autoSearch") ?? false
    }
}

/// The body of `POST /v1/sessions/{id}/search/execute`: `{"text": String?}`.
package struct SearchExecuteCommand: Sendable, Equatable {
    /// The text to search for; nil (absent or null) searches the current text.
    package var text: String?

    /// Decodes and validates the body object.
    /// - Throws: `400 invalid_field` when `text` is present, not null and not a string.
    package init(body: JSONObject) throws(HTTPError) {
        guard let value = body["text"], !value.isNull else {
            text = nil
            return
        }
        guard let string = value.stringValue else { throw HTTPError.invalidField("text", "must be a string") }
        text = string
    }
}

/// The body of `POST /v1/sessions/{id}/search/visible`: `{"photoIds": [String]}`.
package struct SearchVisibleCommand: Sendable, Equatable {
    /// The most photo ids one command may list.
    package static let maxPhotos = 500

    /// The photos on screen, in the order given (at most ``maxPhotos``).
    package var photoIds: [String]

    /// Decodes and validates the body object.
    /// - Throws: `400 invalid_field` unless `photoIds` is an array of at most ``maxPhotos`` strings.
    package init(body: JSONObject) throws(HTTPError) {
        guard let list = body["photoIds"]?.arrayValue else {
            throw HTTPError.invalidField("photoIds", "must be an array of strings")
        }
        guard list.count <= Self.maxPhotos else {
            throw HTTPError.invalidField("photoIds", "may list at most \(Self.maxPhotos) photos")
        }
        var ids: [String] = []
        ids.reserveCapacity(list.count)
        for entry in list {
            guard let id = entry.stringValue else {
                throw HTTPError.invalidField("photoIds", "must be an array of strings")
            }
            ids.append(id)
        }
        photoIds = ids
    }
}

/// Shared field readers of command bodies.
package enum CommandFields {
    /// The boolean `field` of `body`: nil when absent or null.
    /// - Throws: `400 invalid_field` when present with another type.
    package static func optionalBool(_ body: JSONObject, _ field: String) throws(HTTPError) -> Bool? {
        guard let value = body[field], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw HTTPError.invalidField(field, "must be a boolean") }
        return bool
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
