import EventLoop
import HTTPServer

/// The thin web client served at `/`: one HTML page, one stylesheet and one script, the files under
/// `Sources/VMHost/Resources/web/`, embedded in the binary by scripts/generate-resources (no CDN).
///
/// Every asset carries an `ETag` computed once from its bytes (64-bit FNV-1a) and answers `304 Not Modified`
/// to a matching `If-None-Match`. The page is revalidated on every load (`no-cache`); it references the
/// stylesheet and script as `/app.css?v=<etag>` and `/app.js?v=<etag>`, so those may be cached for an hour
/// and a new build still reaches the browser at once.
///
/// Every asset is served with ``contentSecurityPolicy``: the page runs only its own script and stylesheet (no
/// inline script, style or event handler attributes), talks only to its own origin, shows images only from
/// the hosts its view models point at, and may not be framed.
enum WebClient {
    /// One embedded file, encoded once.
    struct Asset: Sendable {
        let contentType: String
        let cacheControl: String
        let body: [UInt8]
        /// The quoted entity tag, e.g. `"f1a2b3c4d5e6f708"`.
        let etag: String

        init(contentType: String, cacheControl: String, text: String) {
            self.contentType = contentType
            self.cacheControl = cacheControl
            self.body = Array(text.utf8)
            self.etag = "\"\(WebClient.fnv1a64Hex(body))\""
        }

        /// The version token used in `?v=` query strings: the entity tag without quotes.
        var version: String { String(etag.dropFirst().dropLast()) }
    }

    static let cssAsset = Asset(
        contentType: "text/css; charset=utf-8", cacheControl: cachedAssetPolicy, text: EmbeddedResources.webClientCSS
    )
    static let jsAsset = Asset(
        contentType: "text/javascript; charset=utf-8", cacheControl: cachedAssetPolicy,
        text: EmbeddedResources.webClientJS
    )
    static let htmlAsset = Asset(
        contentType: "text/html; charset=utf-8", cacheControl: "no-cache",
        text: EmbeddedResources.webClientHTML
            .replacingAll("{{CSS_VERSION}}", with: cssAsset.version)
            .replacingAll("{{JS_VERSION}}", with: jsAsset.version)
    )

    /// The cache policy of the versioned stylesheet and script.
    static let cachedAssetPolicy = "public, max-age=3600"

    /// The page's `Content-Security-Policy`. Images: Flickr's photo hosts (`live.staticflickr.com`,
    /// `farmN.staticflickr.com`), DummyJSON's thumbnails (`cdn.dummyjson.com`), this server, and, only when the
    /// embedded fake upstream serves the photos' images, that fake's exact origin (`http://127.0.0.1:PORT`, a port
    /// chosen at start-up); `data:` only for the page's empty icon. No other origin: in production no loopback
    /// address, no plain `http`.
    static func contentSecurityPolicy(fakeImageOrigin: String?) -> String {
        let fake = fakeImageOrigin.map { " " + $0 } ?? ""
        return [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data: https://*.staticflickr.com https://cdn.dummyjson.com" + fake,
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    /// The origin (`scheme://host[:port]`) of `url`, or nil when it has none.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.firstRange(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { return nil }
        return String(url[..<schemeEnd.upperBound] + authority)
    }

    /// Adds `GET /`, `GET /app.css` and `GET /app.js` (HEAD falls back to GET in the router); `fakeImageOrigin`
    /// is the embedded fake's origin when it serves the photos' images (see ``contentSecurityPolicy(fakeImageOrigin:)``).
    @LoopActor
    static func register(on router: inout Router, fakeImageOrigin: String? = nil) {
        let policy = contentSecurityPolicy(fakeImageOrigin: fakeImageOrigin)
        router.on(.get, "/") { request in .response(response(for: htmlAsset, request: request, policy: policy)) }
        router.on(.get, "/app.css") { request in .response(response(for: cssAsset, request: request, policy: policy)) }
        router.on(.get, "/app.js") { request in .response(response(for: jsAsset, request: request, policy: policy)) }
    }

    /// `200` with the asset, or `304` when `If-None-Match` names its entity tag (or is `*`).
    /// NB: no `X-Content-Type-Options` here: the server adds `nosniff` to every answer (its common headers).
    @LoopActor
    static func response(for asset: Asset, request: HTTPRequest, policy: String) -> HTTPResponse {
        let headers = [
            HTTPHeader("Content-Type", asset.contentType),
            HTTPHeader("Cache-Control", asset.cacheControl),
            HTTPHeader("ETag", asset.etag),
            HTTPHeader("Content-Security-Policy", policy),
        ]
        if let condition = request.header("If-None-Match"), matches(condition, etag: asset.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: asset.body)
    }

    /// Whether an `If-None-Match` value (a list of entity tags, weak or strong, or `*`) names `etag`.
    static func matches(_ condition: String, etag: String) -> Bool {
        for candidate in condition.split(separator: ",") {
            var tag = candidate.trimmingHTTPWhitespace()
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            if tag == etag { return true }
        }
        return false
    }

    /// The 64-bit FNV-1a hash of `bytes` as 16 lowercase hex digits.
    static func fnv1a64Hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension String {
    /// This string with every occurrence of `target` replaced (no Foundation needed).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        result += rest
        return result
    }
}
