import JSON
import Services
import Testing
import Upstreams

/// Upstream data that becomes an `href` or a `src` (API.md, "What never leaves the server"): `pageUrl` is an
/// `https` URL of Flickr's own hosts, image URLs are built only from plain path segments, product images are
/// `https`; anything else is replaced by the safe default or dropped.
@Suite("URLs from upstreams")
struct UpstreamURLSafetyTests {
    /// A getInfo answer whose `photopage` is `page` and whose owner is `nsid`.
    static func info(page: String, nsid: String = "12345678@N02", server: String = "65535") -> JSONValue {
        [
            "photo": [
                "id": "53012345678", "secret": "abcdef1234", "server": .string(server),
                "owner": ["nsid": .string(nsid), "username": "jane"],
                "urls": ["url": [["type": "photopage", "_content": .string(page)]]],
            ],
            "stat": "ok",
        ]
    }

    @Test(arguments: [
        "javascript:alert(document.domain)//",
        "JavaScript:alert(1)",
        "data:text/html,<script>alert(1)</script>",
        "http://www.flickr.com/photos/janedoe/53012345678/",
        "https://evil.example/photos/janedoe/53012345678/",
        "https://www.flickr.com.evil.example/x",
        "https://www.flickr.com@evil.example/x",
        "https://www.flickr.com:8443/x",
        "https://www.flickr.com/\"onmouseover=\"alert(1)",
        "https://www.flickr.com/x y",
        "//evil.example/x",
        "",
    ])
    func anUnsafePhotoPageIsReplacedByFlickrsOwn(page: String) throws {
        let detail = try FlickrAPIService.decodePhotoInfo(Self.info(page: page))
        #expect(detail.pageUrl == "https://www.flickr.com/photos/12345678@N02/53012345678/", "\(page)")
    }

    @Test(arguments: [
        "https://www.flickr.com/photos/janedoe/53012345678/", "https://flickr.com/photos/janedoe/53012345678/",
        "HTTPS://WWW.FLICKR.COM/photos/janedoe/53012345678/", "https://flic.kr/p/2oXyZab",
    ])
    func flickrsOwnPhotoPagesAreKept(page: String) throws {
        #expect(try FlickrAPIService.decodePhotoInfo(Self.info(page: page)).pageUrl == page)
    }

    @Test func anUnsafeOwnerIdFallsBackToThePhotosOwnPage() throws {
        let detail = try FlickrAPIService.decodePhotoInfo(Self.info(page: "javascript:x", nsid: "../../evil?x=1"))
        #expect(detail.pageUrl == "https://www.flickr.com/photo.gne?id=53012345678")
    }

    @Test(arguments: ["../../evil.example", "65535/x", "a?b", "a#b", "x y", "@evil.example:80"])
    func imagePathsAreOnlyPlainSegments(server: String) {
        #expect(throws: UpstreamError.self) {
            try FlickrAPIService.decodePhotoInfo(Self.info(page: "", server: server))
        }
        let search: JSONValue = [
            "photos": [
                "page": 1, "pages": 1, "perpage": 1, "total": 1,
                "photo": [["id": "1", "secret": "abc", "server": .string(server), "title": "t"]],
            ],
            "stat": "ok",
        ]
        #expect(throws: UpstreamError.self) { try FlickrAPIService.decodeSearch(search) }
    }

    @Test func productImagesAreHTTPSOnly() throws {
        let products: [JSONValue] = [
            "https://cdn.dummyjson.com/products/images/beauty/mascara/thumbnail.png", "javascript:alert(1)",
            "http://cdn.dummyjson.com/x.png", "https://cdn.dummyjson.com/\"><script>",
        ].enumerated().map { index, thumbnail in
            ["id": .int(index + 1), "title": "t", "price": 1, "stock": 1, "thumbnail": thumbnail]
        }
        let json: JSONValue = ["products": .array(products), "total": 4, "skip": 0, "limit": 4]
        let page = try DummyJSONProductService.decode(json, requestedPage: 1)
        #expect(
            page.items.map(\.imageUrl) == [
                "https://cdn.dummyjson.com/products/images/beauty/mascara/thumbnail.png", nil, nil, nil,
            ])
    }
}
