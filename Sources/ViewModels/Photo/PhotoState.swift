import JSON
import Services

/// The whole state of the photo detail screen (API.md "Photo view model").
///
/// Both Loadables are keyed by the photo id they load, so a load in flight says which photo it is for.
public struct PhotoState: ViewModelState {
    /// The open photo; nil when none is open.
    public var photoId: String?
    /// The photo's details (`flickr.photos.getInfo`).
    public var detail: Loadable<PhotoDetail, String>
    /// The photo's comments, oldest first (`flickr.photos.comments.getList`).
    public var comments: Loadable<[PhotoComment], String>
    /// The most recent failure of either load; cleared once both loads of an open succeed, kept while loading.
    public var lastError: UpstreamError?

    /// Creates a state; the default is the initial one: no photo, both Loadables idle.
    public init(
        photoId: String? = nil, detail: Loadable<PhotoDetail, String> = .idle,
        comments: Loadable<[PhotoComment], String> = .idle, lastError: UpstreamError? = nil
    ) {
        self.photoId = photoId
        self.detail = detail
        self.comments = comments
        self.lastError = lastError
    }

    /// Whether both the detail and the comments are loaded.
    var isFullyLoaded: Bool {
        if case .loaded = detail, case .loaded = comments { return true }
        return false
    }

    /// The API's PhotoState (without `version`, which the state channel adds).
    public static let jsonMembers: [StateMember<PhotoState>] = [
        StateMember("photoId", { $0.photoId }, json: { $0.map { .string($0) } ?? .null }),
        StateMember("detail", differs: { $0.detail != $1.detail }, json: { $0.detail.json(\.json) }),
        StateMember(
            "comments", differs: { $0.comments != $1.comments }, json: { $0.comments.json { .array($0.map(\.json)) } }),
        StateMember("lastError", { $0.lastError }, json: { $0?.json ?? .null }),
    ]
}
