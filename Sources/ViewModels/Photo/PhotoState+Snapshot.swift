import JSON
import Services

// The journal form of the photo screen's state: the public JSON of the detail and the comments, each
// Loadable with the photo id of a load in flight.

extension PhotoDetail {
    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            id: try reader.string("id"), title: try reader.string("title"),
            description: try reader.string("description"), owner: try reader.string("owner"),
            takenAt: try reader.optionalString("takenAt"), views: try reader.optionalInt("views"),
            tags: try reader.strings("tags"), imageUrl: try reader.string("imageUrl"),
            pageUrl: try reader.string("pageUrl")
        )
    }
}

extension PhotoComment {
    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            id: try reader.string("id"), author: try reader.string("author"), text: try reader.string("text"),
            createdAt: try reader.string("createdAt")
        )
    }
}

extension PhotoState {
    /// The request of a load in flight: `{"photoId": …}`.
    private static func requestSnapshot(_ photoID: String) -> JSONValue { ["photoId": .string(photoID)] }

    private static func request(_ reader: SnapshotReader) throws(SnapshotError) -> String {
        try reader.string("photoId")
    }

    var snapshot: JSONValue {
        [
            "photoId": photoId.map { .string($0) } ?? .null,
            "detail": detail.snapshot(value: \.json, request: Self.requestSnapshot),
            // NB: the comments' value is an array, and Loadable snapshots keep values as objects.
            "comments": comments.snapshot(value: { ["list": .array($0.map(\.json))] }, request: Self.requestSnapshot),
            "lastError": lastError?.json ?? .null,
        ]
    }

    init(snapshot reader: SnapshotReader) throws(SnapshotError) {
        self.init(
            photoId: try reader.optionalString("photoId"),
            detail: try Loadable(
                snapshot: reader.object("detail"),
                value: { (r) throws(SnapshotError) in try PhotoDetail(snapshot: r) },
                request: { (r) throws(SnapshotError) in try Self.request(r) }
            ),
            comments: try Loadable(
                snapshot: reader.object("comments"),
                value: { (r) throws(SnapshotError) in
                    try r.array("list") { (comment) throws(SnapshotError) in try PhotoComment(snapshot: comment) }
                },
                request: { (r) throws(SnapshotError) in try Self.request(r) }
            ),
            lastError: try reader.optionalError("lastError")
        )
    }
}
