import JSON
import Services

/// Decoding of `flickr.photos.getInfo` and `flickr.photos.comments.getList` (API.md "Photo view model").
extension FlickrAPIService {
    /// Maps a `flickr.photos.getInfo` response to a ``PhotoDetail`` (public for tests).
    ///
    /// Reads the `_content` of the wrapped texts, the description as plain text, the owner's
    /// real name or else user name, `dates.taken` as `YYYY-MM-DDTHH:MM:SS` (nil when missing or malformed),
    /// `views` from a string or a number (nil when absent or unreadable), the `raw` of each tag, the large image
    /// on `imageHost`, and the `photopage` URL when it is `https` on Flickr's hosts, or else
    /// `https://www.flickr.com/photos/{owner.nsid}/{id}/`.
    /// - Throws: ``UpstreamError`` `business` for `stat: fail`, `decoding` for a photo without id, server or
    ///   secret.
    nonisolated public static func decodePhotoInfo(
        _ json: JSONValue, imageHost: FlickrImageHost = .live
    ) throws(UpstreamError) -> PhotoDetail {
        try checkStat(json)
        guard let photo = json["photo"], photo.objectValue != nil else {
            throw .decoding("missing 'photo' object", service: service)
        }
        // NB: they become the URLs' paths: anything but a plain segment could lead them elsewhere.
        guard let id = photo["id"]?.lenientString, SafeURL.isPathSegment(id),
            let server = photo["server"]?.lenientString, SafeURL.isPathSegment(server),
            let secret = photo["secret"]?.lenientString, SafeURL.isPathSegment(secret)
        else {
            throw .decoding("'photo' lacks a usable id, server or secret", service: service)
        }
        let owner = photo["owner"]
        return PhotoDetail(
            id: id,
            title: content(photo["title"]),
            description: PhotoFormatting.plainText(html: content(photo["description"])),
            owner: displayName(realname: owner?["realname"], fallback: owner?["username"]),
            takenAt: photo["dates"]?["taken"]?.stringValue.flatMap(PhotoFormatting.takenAt(flickrDate:)),
            views: photo["views"]?.lenientInt.flatMap { $0 >= 0 ? $0 : nil },
            tags: (photo["tags"]?["tag"]?.arrayValue ?? []).compactMap { tag in
                (tag["raw"] ?? tag["_content"])?.lenientString
            },
            imageUrl: imageHost.url(server: server, id: id, secret: secret, size: .large1024),
            pageUrl: photoPage(photo["urls"])
                ?? PhotoFormatting.defaultPageURL(
                    ownerID: owner?["nsid"]?.lenientString.flatMap { SafeURL.isPathSegment($0) ? $0 : nil },
                    photoID: id)
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
                let createdAt = PhotoFormatting.createdAt(unixSeconds: Int64(seconds))
            else {
                throw .decoding("comment \(index) lacks a readable 'datecreate'", service: service)
            }
            result.append(
                PhotoComment(
                    id: id, author: displayName(realname: entry["realname"], fallback: entry["authorname"]),
                    text: PhotoFormatting.plainText(html: entry["_content"]?.lenientString ?? ""), createdAt: createdAt
                )
            )
        }
        return result
    }

    /// The text of a Flickr text field: `{"_content": "..."}`, or a bare string as some older answers send.
    nonisolated private static func content(_ field: JSONValue?) -> String {
        (field?["_content"] ?? field)?.lenientString ?? ""
    }

    /// The real name (when it is a string) unless it is empty, else the fallback name (``PhotoFormatting``).
    nonisolated private static func displayName(realname: JSONValue?, fallback: JSONValue?) -> String {
        PhotoFormatting.personName(realName: realname?.stringValue, userName: fallback?.lenientString)
    }

    /// The `_content` of the first `urls.url` of type `photopage` that is an `https` URL on Flickr's own hosts
    /// (``SafeURL``): it becomes a link's `href`, so `javascript:…` or another site is never taken.
    nonisolated private static func photoPage(_ urls: JSONValue?) -> String? {
        for url in urls?["url"]?.arrayValue ?? [] where url["type"]?.stringValue == "photopage" {
            if let page = url["_content"]?.stringValue, SafeURL.isHTTPS(page, hosts: SafeURL.flickrPageHosts) {
                return page
            }
        }
        return nil
    }
}
