import JSON

/// Decoding of `flickr.photos.getInfo` and `flickr.photos.comments.getList` (API.md "Photo view model").
extension FlickrAPIService {
    /// Maps a `flickr.photos.getInfo` response to a ``PhotoDetail`` (public for tests).
    ///
    /// Reads the `_content` of the wrapped texts, the description as plain text (``HTMLText``), the owner's
    /// real name or else user name, `dates.taken` as `YYYY-MM-DDTHH:MM:SS` (nil when missing or malformed),
    /// `views` from a string or a number (nil when absent or unreadable), the `raw` of each tag, the large image
    /// on `imageHost`, and the `photopage` URL or else `https://www.flickr.com/photos/{owner.nsid}/{id}/`.
    /// - Throws: ``UpstreamError`` `business` for `stat: fail`, `decoding` for a photo without id, server or
    ///   secret.
    nonisolated public static func decodePhotoInfo(
        _ json: JSONValue, imageHost: FlickrImageHost = .live
    ) throws(UpstreamError) -> PhotoDetail {
        try checkStat(json)
        guard let photo = json["photo"], photo.objectValue != nil else {
            throw .decoding("missing 'photo' object", service: service)
        }
        guard let id = photo["id"]?.lenientString, !id.isEmpty,
            let server = photo["server"]?.lenientString, !server.isEmpty,
            let secret = photo["secret"]?.lenientString, !secret.isEmpty
        else {
            throw .decoding("'photo' lacks id, server or secret", service: service)
        }
        let owner = photo["owner"]
        return PhotoDetail(
            id: id,
            title: content(photo["title"]),
            description: HTMLText.plainText(content(photo["description"])),
            owner: displayName(realname: owner?["realname"], fallback: owner?["username"]),
            takenAt: photo["dates"]?["taken"]?.stringValue.flatMap(localDateTime),
            views: photo["views"]?.lenientInt.flatMap { $0 >= 0 ? $0 : nil },
            tags: (photo["tags"]?["tag"]?.arrayValue ?? []).compactMap { tag in
                (tag["raw"] ?? tag["_content"])?.lenientString
            },
            imageUrl: imageHost.url(server: server, id: id, secret: secret, size: .large1024),
            pageUrl: photoPage(photo["urls"]) ?? defaultPhotoPage(owner: owner?["nsid"]?.lenientString, id: id)
        )
    }

    /// Maps a `flickr.photos.comments.getList` response to its comments, in Flickr's order (oldest first); a
    /// missing `comment` list is empty (public for tests).
    ///
    /// The author is the real name or else `authorname`, the text the `_content` as plain text, and
    /// `createdAt` the Unix seconds of `datecreate` in RFC 3339 UTC.
    /// - Throws: ``UpstreamError`` `business` for `stat: fail`, `decoding` for a comment without id or a
    ///   readable `datecreate`.
    nonisolated public static func decodePhotoComments(_ json: JSONValue) throws(UpstreamError) -> [PhotoComment] {
        try checkStat(json)
        guard let comments = json["comments"], comments.objectValue != nil else {
            throw .decoding("missing 'comments' object", service: service)
        }
        let list: [JSONValue]
        switch comments["comment"] {
        case nil, .null?:
            return []
        case .array(let entries)?:
            list = entries
        default:
            throw .decoding("'comments.comment' is not a list", service: service)
        }
        var result: [PhotoComment] = []
        result.reserveCapacity(list.count)
        for (index, entry) in list.enumerated() {
            guard let id = entry["id"]?.lenientString, !id.isEmpty else {
                throw .decoding("comment \(index) lacks an id", service: service)
            }
            guard let seconds = entry["datecreate"]?.lenientInt,
                let createdAt = RFC3339.utc(unixSeconds: Int64(seconds))
            else {
                throw .decoding("comment \(index) lacks a readable 'datecreate'", service: service)
            }
            result.append(
                PhotoComment(
                    id: id, author: displayName(realname: entry["realname"], fallback: entry["authorname"]),
                    text: HTMLText.plainText(entry["_content"]?.lenientString ?? ""), createdAt: createdAt
                )
            )
        }
        return result
    }

    /// The text of a Flickr text field: `{"_content": "..."}`, or a bare string as some older answers send.
    nonisolated private static func content(_ field: JSONValue?) -> String {
        (field?["_content"] ?? field)?.lenientString ?? ""
    }

    /// The real name unless it is empty (or only spaces), else the fallback name (else "").
    nonisolated private static func displayName(realname: JSONValue?, fallback: JSONValue?) -> String {
        if let name = realname?.stringValue, !name.trimmingSpaces.isEmpty { return name }
        return fallback?.lenientString ?? ""
    }

    /// `YYYY-MM-DDTHH:MM:SS` from Flickr's `YYYY-MM-DD HH:MM:SS`; nil unless the text is exactly that shape
    /// with a real month, day, hour, minute and second.
    nonisolated static func localDateTime(_ taken: String) -> String? {
        let bytes = Array(taken.utf8)
        guard bytes.count == 19 else { return nil }
        let separators: [Int: UInt8] = [
            4: UInt8(ascii: "-"), 7: UInt8(ascii: "-"), 10: UInt8(ascii: " "), 13: UInt8(ascii: ":"),
            16: UInt8(ascii: ":"),
        ]
        for (index, byte) in bytes.enumerated() {
            if let separator = separators[index] {
                guard byte == separator else { return nil }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            }
        }
        func number(_ range: Range<Int>) -> Int {
            bytes[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard (1...12).contains(number(5..<7)), (1...31).contains(number(8..<10)), number(11..<13) < 24,
            number(14..<16) < 60, number(17..<19) < 60
        else {
            return nil
        }
        var result = bytes
        result[10] = UInt8(ascii: "T")
        return String(decoding: result, as: UTF8.self)
    }

    /// The `_content` of the first `urls.url` of type `photopage`.
    nonisolated private static func photoPage(_ urls: JSONValue?) -> String? {
        for url in urls?["url"]?.arrayValue ?? [] where url["type"]?.stringValue == "photopage" {
            if let page = url["_content"]?.stringValue, !page.isEmpty { return page }
        }
        return nil
    }

    /// `https://www.flickr.com/photos/{nsid}/{id}/`; without an owner id, Flickr's redirect by photo id.
    nonisolated private static func defaultPhotoPage(owner nsid: String?, id: String) -> String {
        guard let nsid, !nsid.isEmpty else { return "https://www.flickr.com/photo.gne?id=\(id)" }
        return "https://www.flickr.com/photos/\(nsid)/\(id)/"
    }
}
