import EventLoop
import JSON

// The photo screen's commands: `POST /v1/sessions/{id}/photo/{command}`. Decoding is pure (the fuzz target
// calls it with arbitrary input); every failure names the field.

/// The body of `photo/open`: `{"photoId": String}`.
package struct PhotoOpenCommand: Sendable, Equatable {
    /// The photo to open (required, not empty).
    package var photoId: String

    /// Decodes and validates the body object.
    /// - Throws: `invalidField` unless `photoId` is a non-empty string.
    package init(body: JSONObject) throws(CommandRejection) {
        guard let photoId = body["photoId"]?.stringValue, !photoId.isEmpty else {
            throw .invalidField("photoId", "must be a non-empty string")
        }
        self.photoId = photoId
    }
}

extension PhotoViewModel: HostedViewModel {
    public nonisolated static let name = "photo"

    public nonisolated static let commands: [ViewModelCommand<PhotoViewModel>] = [
        ViewModelCommand("open") { body throws(CommandRejection) in
            let command = try PhotoOpenCommand(body: body)
            return { photo throws(CommandRejection) in
                try UpstreamBudget.check(photo.upstreamBudget)
                photo.open(photoID: command.photoId)
                photo.upstreamBudget?.take()
                return .accepted { [weak photo] in await photo?.waitUntilIdle() }
            }
        },
        ViewModelCommand("close") { photo in
            photo.close()
            return .state
        },
    ]
}
