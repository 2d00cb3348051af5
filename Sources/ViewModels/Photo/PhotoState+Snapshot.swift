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
    private static func writeRequest(_ photoID: String, to json: inout JSONTextWriter) {
        json.openObject()
        json.key("photoId")
        json.string(photoID)
        json.closeObject()
    }

    private static func request(_ reader: SnapshotReader) throws(SnapshotError) -> String {
        try reader.string("photoId")
    }

    func writeSnapshot(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("photoId")
        json.string(photoId)
        json.key("detail")
        detail.writeSnapshot(
            to: &json, value: { $1.value($0.json) }, request: { Self.writeRequest($0, to: &$1) })
        json.key("comments")
        // NB: the comments' value is an array, and Loadable snapshots keep values as objects.
        comments.writeSnapshot(
            to: &json,
            value: { comments, json in
                json.openObject()
                json.key("list")
                json.openArray()
                for comment in comments { json.value(comment.json) }
                json.closeArray()
                json.closeObject()
            },
            request: { Self.writeRequest($0, to: &$1) }
        )
        json.key("lastError")
        if let lastError { json.value(lastError.json) } else { json.null() }
        json.closeObject()
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

// The journal's extras of the photo screen (the photo of each load in flight, with each load's status and
// failure) and the snapshot rebuilt from the JSON and the extras.

extension PhotoState {
    /// The extras of both loads: `{"detail", "comments"}`.
    func writeExtras(to json: inout JSONTextWriter) {
        json.openObject()
        json.key("detail")
        detail.writeExtras(to: &json) { Self.writeRequest($0, to: &$1) }
        json.key("comments")
        comments.writeExtras(to: &json) { Self.writeRequest($0, to: &$1) }
        json.closeObject()
    }

    /// The snapshot form (``writeSnapshot(to:)``'s JSON) of the state whose API JSON is `json`, with the extras
    /// `extras` (``writeExtras(to:)``).
    static func snapshot(json: SnapshotReader, extras: SnapshotReader) throws(SnapshotError) -> JSONValue {
        let detail = try json.object("detail").value("value")
        let comments = try json.object("comments").value("value")
        return [
            "photoId": json.value("photoId"),
            "detail": try Loadable<PhotoDetail, String>.snapshot(
                extras: extras.value("detail"), value: detail.isNull ? nil : detail),
            "comments": try Loadable<[PhotoComment], String>.snapshot(
                extras: extras.value("comments"), value: comments.isNull ? nil : ["list": comments]),
            "lastError": json.value("lastError"),
        ]
    }
}
