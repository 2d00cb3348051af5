/// A size of Flickr's static images: the suffix of the file name.
public enum FlickrImageSize: String, Sendable, CaseIterable {
    /// 75 px square (`_s`).
    case square75 = "s"
    /// 240 px on the longest side (`_m`).
    case small240 = "m"
    /// 1024 px on the longest side (`_b`).
    case large1024 = "b"
}

/// Where Flickr's static images are served from, and the one builder of their URLs:
/// `{baseURL}/{server}/{id}_{secret}_{size}.jpg`.
///
/// Real Flickr serves them from ``live``; the embedded fake upstream serves generated images of the same paths
/// from its own base, so an offline run shows pictures.
public struct FlickrImageHost: Sendable, Equatable {
    /// Flickr's static image host, `https://live.staticflickr.com`.
    public static let live = FlickrImageHost(baseURL: "https://live.staticflickr.com")

    /// The URL the image paths are appended to, without a trailing `/`.
    public let baseURL: String

    /// Creates a host; a trailing `/` of `baseURL` is dropped.
    public init(baseURL: String) {
        var base = Substring(baseURL)
        while base.last == "/" { base = base.dropLast() }
        self.baseURL = String(base)
    }

    /// The URL of the image of photo `id` in `size`.
    public func url(server: String, id: String, secret: String, size: FlickrImageSize) -> String {
        // NB: built in one allocation: cells format their URLs each time their JSON is built.
        var url = ""
        url.reserveCapacity(baseURL.utf8.count + server.utf8.count + id.utf8.count + secret.utf8.count + 9)
        url += baseURL
        url += "/"
        url += server
        url += "/"
        url += id
        url += "_"
        url += secret
        url += "_"
        url += size.rawValue
        url += ".jpg"
        return url
    }
}
