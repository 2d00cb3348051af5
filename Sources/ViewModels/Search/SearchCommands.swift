import EventLoop
import JSON

// The search screen's commands: `POST /v1/sessions/{id}/search/{command}`. Decoding is pure (the fuzz target
// calls it with arbitrary input); every failure names the field.

/// The body of `search/text`: `{"text": String, "autoSearch": Bool?}`.
package struct SearchTextCommand: Sendable, Equatable {
    /// The new search text (required).
    package var text: String
    /// Whether a search runs after the debounce delay (default `false`).
    package var autoSearch: Bool

    /// Decodes and validates the body object.
    /// - Throws: `invalidField` when `text` is not a string or `autoSearch` is neither a boolean nor null.
    package init(body: JSONObject) throws(CommandRejection) {
        text = try CommandFields.requiredString(body, "text")
        autoSearch = try CommandFields.optionalBool(body, "autoSearch") ?? false
    }
}

/// The body of `search/execute`: `{"text": String?}`.
package struct SearchExecuteCommand: Sendable, Equatable {
    /// The text to search for; nil (absent or null) searches the current text.
    package var text: String?

    /// Decodes and validates the body object.
    /// - Throws: `invalidField` when `text` is present, not null and not a string.
    package init(body: JSONObject) throws(CommandRejection) {
        guard let value = body["text"], !value.isNull else {
            text = nil
            return
        }
        guard let string = value.stringValue else { throw .notAString("text") }
        text = string
    }
}

/// The body of `search/visible`: `{"photoIds": [String]}`.
package struct SearchVisibleCommand: Sendable, Equatable {
    /// The most photo ids one command may list.
    package static let maxPhotos = 500

    /// The photos on screen, in the order given (at most ``maxPhotos``).
    package var photoIds: [String]

    /// Decodes and validates the body object.
    /// - Throws: `invalidField` unless `photoIds` is an array of at most ``maxPhotos`` strings.
    package init(body: JSONObject) throws(CommandRejection) {
        guard let list = body["photoIds"]?.arrayValue else {
            throw .invalidField("photoIds", "must be an array of strings")
        }
        guard list.count <= Self.maxPhotos else {
            throw .invalidField("photoIds", "may list at most \(Self.maxPhotos) photos")
        }
        var ids: [String] = []
        ids.reserveCapacity(list.count)
        for entry in list {
            guard let id = entry.stringValue else { throw .invalidField("photoIds", "must be an array of strings") }
            ids.append(id)
        }
        photoIds = ids
    }
}

extension SearchViewModel: HostedViewModel {
    public nonisolated static let name = "search"

    public nonisolated static let commands: [ViewModelCommand<SearchViewModel>] = [
        ViewModelCommand("text") { body throws(CommandRejection) in
            let command = try SearchTextCommand(body: body)
            return { search in
                search.setText(command.text, autoSearch: command.autoSearch)
                return .state
            }
        },
        ViewModelCommand("execute") { body throws(CommandRejection) in
            let command = try SearchExecuteCommand(body: body)
            return { search throws(CommandRejection) in
                try UpstreamBudget.check(search.upstreamBudget)
                do throws(CommandDisabled) {
                    try search.execute(text: command.text)
                } catch {
                    throw .disabled(error)
                }
                search.upstreamBudget?.take()
                return .accepted { [weak search] in await search?.waitUntilIdle() }
            }
        },
        ViewModelCommand("load-more") { search throws(CommandRejection) in
            try UpstreamBudget.check(search.upstreamBudget)
            do throws(CommandDisabled) {
                try search.loadMore()
            } catch {
                throw .disabled(error)
            }
            search.upstreamBudget?.take()
            return .accepted { [weak search] in await search?.waitUntilIdle() }
        },
        ViewModelCommand("cancel") { search in
            search.cancel()
            return .state
        },
        ViewModelCommand("visible") { body throws(CommandRejection) in
            let command = try SearchVisibleCommand(body: body)
            return { search in
                search.visible(command.photoIds)
                return .accepted { [weak search] in await search?.waitUntilMetadataLoaded() }
            }
        },
    ]
}
