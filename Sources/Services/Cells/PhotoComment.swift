import JSON

/// One comment on a Flickr photo, display-ready (API.md "Photo view model", `comments.value[]`).
public struct PhotoComment: Sendable, Equatable {
    /// Flickr's comment id.
    public var id: String
    /// The author's real name, or their user name when the real name is empty.
    public var author: String
    /// The comment as plain text.
    public var text: String
    /// When it was written, RFC 3339 in UTC (`2023-07-05T10:00:00Z`).
    public var createdAt: String

    /// Creates a comment.
    public init(id: String, author: String, text: String, createdAt: String) {
        self.id = id
        self.author = author
        self.text = text
        self.createdAt = createdAt
    }

    /// The API's PhotoComment object.
    public var json: JSONValue {
        ["id": .string(id), "author": .string(author), "text": .string(text), "createdAt": .string(createdAt)]
    }
}
