import EventLoop
import HTTPClient
import JSON
import Services

/// The Flickr REST API in JSON (`format=json&nojsoncallback=1`): photo search, favorites, comments and photo
/// details.
///
/// Flickr reports failures with HTTP 200 and `{"stat": "fail", "code", "message"}` (a `business` error), and
/// sends `total`, `pages`, `perpage` and `page` sometimes as numbers, sometimes as strings. The API key never
/// appears in an error message: it is redacted from whatever the transport reports.
@LoopActor
public final class FlickrAPIService: FlickrService {
    nonisolated static let service = "Flickr"
    private static let redactionMarker = "[redacted]"

    private let fetcher: SharedFetcher
    private let endpoint: String
    private let apiKey: String?
    /// Photos per search page.
    public let perPage: Int
    /// Where the URLs of the photos' images point.
    public let imageHost: FlickrImageHost
    private let recorder: UpstreamRecorder

    /// Creates the service.
    /// - Parameters:
    ///   - endpoint: the REST endpoint that `?method=...` is appended to (`&...` when it already has a query).
    ///   - apiKey: sent as `api_key`; omitted when nil.
    ///   - perPage: photos per search page (Flickr allows at most 500).
    ///   - imageHost: where the photos' image URLs point (Flickr's own host unless a fake serves the images).
    ///   - recorder: receives one record per call (metrics), under the service name `flickr`.
    public init(
        fetcher: SharedFetcher, endpoint: String, apiKey: String?, perPage: Int = 30,
        imageHost: FlickrImageHost = .live, recorder: UpstreamRecorder = .none
    ) {
        self.fetcher = fetcher
        self.endpoint = endpoint
        self.apiKey = apiKey
        self.perPage = min(max(perPage, 1), 500)
        self.imageHost = imageHost
        self.recorder = recorder
    }

    /// Creates the service on its own ``SharedFetcher`` over `client`, sharing calls in flight but caching
    /// nothing.
    public convenience init(
        client: HTTPClient, endpoint: String, apiKey: String?, perPage: Int = 30,
        imageHost: FlickrImageHost = .live, recorder: UpstreamRecorder = .none
    ) {
        self.init(
            fetcher: SharedFetcher(client: client, ttl: .zero), endpoint: endpoint, apiKey: apiKey, perPage: perPage,
            imageHost: imageHost, recorder: recorder
        )
    }

    /// Searches photos matching `text` by interestingness; page `page` of ``perPage``-sized pages.
    public func search(text: String, page: Int) async throws -> FlickrSearchPage {
        let parameters = [
            (name: "text", value: text), (name: "sort", value: "interestingness-desc"),
            (name: "page", value: String(page)), (name: "per_page", value: String(perPage)),
        ]
        return try await call("flickr.photos.search", parameters) { [imageHost] json throws(UpstreamError) in
            try Self.decodeSearch(json, imageHost: imageHost)
        }
    }

    /// The number of people who marked the photo as a favorite.
    public func favoritesCount(photoID: String) async throws -> Int {
        try await call("flickr.photos.getFavorites", [(name: "photo_id", value: photoID)], decode: Self.decodeFavorites)
    }

    /// The number of comments on the photo.
    public func commentsCount(photoID: String) async throws -> Int {
        try await call(
            "flickr.photos.comments.getList", [(name: "photo_id", value: photoID)], decode: Self.decodeComments)
    }

    /// The photo's details (`flickr.photos.getInfo`), its image on ``imageHost``.
    public func photoInfo(photoID: String) async throws -> PhotoDetail {
        try await call("flickr.photos.getInfo", [(name: "photo_id", value: photoID)]) {
            [imageHost] json throws(UpstreamError) in
            try Self.decodePhotoInfo(json, imageHost: imageHost)
        }
    }

    /// The photo's comments (`flickr.photos.comments.getList`), oldest first.
    public func photoComments(photoID: String) async throws -> [PhotoComment] {
        try await call(
            "flickr.photos.comments.getList", [(name: "photo_id", value: photoID)], decode: Self.decodePhotoComments)
    }

    /// The request URL of `method` with `parameters` (public for tests).
    public func url(method: String, _ parameters: [(name: String, value: String)]) -> String {
        var all = [(name: "method", value: method)]
        if let apiKey { all.append((name: "api_key", value: apiKey)) }
        all += parameters
        all += [(name: "format", value: "json"), (name: "nojsoncallback", value: "1")]
        let separator =
            if !endpoint.contains("?") {
                "?"
            } else if endpoint.hasSuffix("?") || endpoint.hasSuffix("&") {
                ""
            } else {
                "&"
            }
        return endpoint + separator + PercentEncoding.query(all)
    }

    // MARK: Decoding

    /// Maps a `flickr.photos.search` response to a page whose photos' images are on `imageHost` (public for
    /// tests).
    /// - Throws: ``UpstreamError`` `business` for `stat: fail`, `decoding` for a malformed shape.
    nonisolated public static func decodeSearch(
        _ json: JSONValue, imageHost: FlickrImageHost = .live
    ) throws(UpstreamError) -> FlickrSearchPage {
        try checkStat(json)
        guard let photos = json["photos"], photos.objectValue != nil else {
            throw .decoding("missing 'photos' object", service: service)
        }
        guard let page = photos["page"]?.lenientInt, let pages = photos["pages"]?.lenientInt,
            let total = photos["total"]?.lenientInt
        else {
            throw .decoding("'photos' lacks numeric page, pages or total", service: service)
        }
        guard let list = photos["photo"]?.arrayValue else {
            throw .decoding("missing 'photos.photo' list", service: service)
        }
        var result: [FlickrPhoto] = []
        result.reserveCapacity(list.count)
        for (index, entry) in list.enumerated() {
            guard let photo = photo(from: entry, imageHost: imageHost) else {
                throw .decoding("photo \(index) lacks a usable id, server or secret", service: service)
            }
            result.append(photo)
        }
        return FlickrSearchPage(page: page, pages: pages, total: total, photos: result)
    }

    /// Reads the `photo.total` of a `flickr.photos.getFavorites` response (public for tests).
    /// - Throws: ``UpstreamError`` `business` for `stat: fail`, `decoding` for a malformed shape.
    nonisolated public static func decodeFavorites(_ json: JSONValue) throws(UpstreamError) -> Int {
        try checkStat(json)
        guard let photo = json["photo"], photo.objectValue != nil else {
            throw .decoding("missing 'photo' object", service: service)
        }
        guard let total = photo["total"]?.lenientInt, total >= 0 else {
            throw .decoding("missing numeric 'photo.total'", service: service)
        }
        return total
    }

    /// Counts the comments of a `flickr.photos.comments.getList` response; a missing `comment` list is 0
    /// (public for tests).
    /// - Throws: ``UpstreamError`` `business` for `stat: fail`, `decoding` for a malformed shape.
    nonisolated public static func decodeComments(_ json: JSONValue) throws(UpstreamError) -> Int {
        try checkStat(json)
        guard let comments = json["comments"], comments.objectValue != nil else {
            throw .decoding("missing 'comments' object", service: service)
        }
        switch comments["comment"] {
        case nil, .null?:
            return 0
        case .array(let list)?:
            return list.count
        default:
            throw .decoding("'comments.comment' is not a list", service: service)
        }
    }

    /// Throws for anything but `stat: ok`.
    nonisolated static func checkStat(_ json: JSONValue) throws(UpstreamError) {
        guard json.objectValue != nil else { throw .decoding("the body is not an object", service: service) }
        switch json["stat"]?.stringValue {
        case "ok"?:
            return
        case "fail"?:
            let message = json["message"]?.lenientString ?? "Flickr reported a failure"
            throw UpstreamError(kind: .business, message: message, status: nil, code: json["code"]?.lenientInt)
        default:
            throw .decoding("missing or unknown 'stat'", service: service)
        }
    }

    nonisolated private static func photo(from entry: JSONValue, imageHost: FlickrImageHost) -> FlickrPhoto? {
        // NB: they become the image URL's path: anything but a plain segment could lead it elsewhere.
        guard let id = entry["id"]?.lenientString, SafeURL.isPathSegment(id),
            let server = entry["server"]?.lenientString, SafeURL.isPathSegment(server),
            let secret = entry["secret"]?.lenientString, SafeURL.isPathSegment(secret)
        else {
            return nil
        }
        return FlickrPhoto(
            id: id, title: entry["title"]?.lenientString ?? "", server: server, secret: secret, imageHost: imageHost
        )
    }

    // MARK: Transport

    /// Fetches one method's JSON and decodes it, keeping the API key out of every error message: the transport's
    /// and the decoding's (a `stat: fail` message may echo the request URL, `api_key` included).
    private func call<Value>(
        _ method: String, _ parameters: [(name: String, value: String)],
        decode: (JSONValue) throws(UpstreamError) -> Value
    ) async throws -> Value {
        let json = try await call(method, parameters)
        do {
            return try decode(json)
        } catch {
            throw redacting(error)
        }
    }

    /// Fetches one method's JSON, recording the call and keeping the API key out of every error message.
    private func call(_ method: String, _ parameters: [(name: String, value: String)]) async throws -> JSONValue {
        let url = url(method: method, parameters)
        return try await recordingUpstreamCall(service: "flickr", recorder: recorder) {
            do {
                return try await fetchJSON(url, fetcher: fetcher, service: Self.service, cacheable: true)
            } catch let error as UpstreamError {
                throw redacting(error)
            }
        }
    }

    /// The error with the API key (plain and percent-encoded) replaced in its message.
    func redacting(_ error: UpstreamError) -> UpstreamError {
        guard let apiKey, !apiKey.isEmpty else { return error }
        var redacted = error
        for secret in [apiKey, PercentEncoding.queryComponent(apiKey)] {
            redacted.message = redacted.message.replacing(secret, with: Self.redactionMarker)
        }
        return redacted
    }
}
