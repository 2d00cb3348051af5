import JSON
import Services
import Testing
import Upstreams

@Suite("Flickr response decoding")
struct FlickrDecodingTests {
    static let photoEntries: JSONValue = [
        [
            "id": "53624890009", "owner": "105731165@N07", "secret": "5cd918efcd", "server": "65535", "farm": 66,
            "title": "Nap time", "ispublic": 1, "isfriend": 0, "isfamily": 0,
        ],
        ["id": 53624890010, "secret": "0123456789", "server": 7372, "title": ""],
    ]

    static let expectedPhotos = [
        FlickrPhoto(id: "53624890009", title: "Nap time", server: "65535", secret: "5cd918efcd"),
        FlickrPhoto(id: "53624890010", title: "", server: "7372", secret: "0123456789"),
    ]

    static func searchResponse(page: JSONValue, pages: JSONValue, perpage: JSONValue, total: JSONValue) -> JSONValue {
        [
            "photos": ["page": page, "pages": pages, "perpage": perpage, "total": total, "photo": photoEntries],
            "stat": "ok",
        ]
    }

    @Test func searchWithNumbers() throws {
        let json = Self.searchResponse(page: 2, pages: 22461, perpage: 5, total: 112301)
        #expect(
            try FlickrAPIService.decodeSearch(json)
                == FlickrSearchPage(page: 2, pages: 22461, total: 112301, photos: Self.expectedPhotos)
        )
    }

    @Test func searchWithStrings() throws {
        let json = Self.searchResponse(page: "1", pages: "20263", perpage: "5", total: "101311")
        #expect(
            try FlickrAPIService.decodeSearch(json)
                == FlickrSearchPage(page: 1, pages: 20263, total: 101311, photos: Self.expectedPhotos)
        )
    }

    @Test func searchWithNoResults() throws {
        let json: JSONValue = [
            "photos": ["page": 1, "pages": 0, "perpage": 30, "total": "0", "photo": []], "stat": "ok",
        ]
        #expect(try FlickrAPIService.decodeSearch(json) == FlickrSearchPage(page: 1, pages: 0, total: 0, photos: []))
    }

    @Test func statFailIsABusinessErrorWithCodeAndMessage() {
        let failure: JSONValue = ["stat": "fail", "code": 100, "message": "Invalid API Key (Key has invalid format)"]
        let expected = UpstreamError(
            kind: .business, message: "Invalid API Key (Key has invalid format)", status: nil, code: 100
        )
        #expect(throws: expected) { try FlickrAPIService.decodeSearch(failure) }
        #expect(throws: expected) { try FlickrAPIService.decodeFavorites(failure) }
        #expect(throws: expected) { try FlickrAPIService.decodeComments(failure) }
        let stringCode: JSONValue = ["stat": "fail", "code": "1", "message": "Photo not found"]
        #expect(throws: UpstreamError(kind: .business, message: "Photo not found", code: 1)) {
            try FlickrAPIService.decodeFavorites(stringCode)
        }
        let bare: JSONValue = ["stat": "fail"]
        let error = #expect(throws: UpstreamError.self) { try FlickrAPIService.decodeSearch(bare) }
        #expect(error?.kind == .business)
        #expect(error?.code == nil)
        #expect(error?.message.isEmpty == false)
    }

    @Test func favoritesTotalAsStringOrNumber() throws {
        let asNumber: JSONValue = [
            "photo": ["person": [], "id": "1", "page": 1, "pages": 1, "perpage": 10, "total": 12], "stat": "ok",
        ]
        let asString: JSONValue = [
            "photo": ["person": [], "id": "1", "page": 1, "pages": 1, "perpage": 10, "total": "12"], "stat": "ok",
        ]
        #expect(try FlickrAPIService.decodeFavorites(asNumber) == 12)
        #expect(try FlickrAPIService.decodeFavorites(asString) == 12)
    }

    @Test func commentsCountWithAndWithoutTheCommentList() throws {
        let comment: JSONValue = [
            "id": "1-2", "author": "a@N00", "authorname": "a", "datecreate": "1295288643", "_content": "Love this!",
        ]
        let three: JSONValue = ["comments": ["photo_id": "1", "comment": [comment, comment, comment]], "stat": "ok"]
        let missing: JSONValue = ["comments": ["photo_id": "1"], "stat": "ok"]
        let null: JSONValue = ["comments": ["photo_id": "1", "comment": nil], "stat": "ok"]
        #expect(try FlickrAPIService.decodeComments(three) == 3)
        #expect(try FlickrAPIService.decodeComments(missing) == 0)
        #expect(try FlickrAPIService.decodeComments(null) == 0)
    }

    @Test(arguments: [
        JSONValue.array([]),
        ["photos": ["page": 1, "pages": 1, "total": 1, "photo": []]],
        ["stat": "weird", "photos": ["page": 1, "pages": 1, "total": 1, "photo": []]],
        ["stat": "ok"],
        ["stat": "ok", "photos": "none"],
        ["stat": "ok", "photos": ["page": 1, "pages": 1, "total": "many", "photo": []]],
        ["stat": "ok", "photos": ["page": 1, "total": 1, "photo": []]],
        ["stat": "ok", "photos": ["page": 1, "pages": 1, "total": 1, "photo": ["id": "1"]]],
        ["stat": "ok", "photos": ["page": 1, "pages": 1, "total": 1, "photo": [["id": "1", "server": "65535"]]]],
        ["stat": "ok", "photos": ["page": 1, "pages": 1, "total": 1, "photo": [["secret": "ab", "server": "1"]]]],
    ])
    func garbledSearchIsADecodingError(json: JSONValue) {
        let error = #expect(throws: UpstreamError.self) { try FlickrAPIService.decodeSearch(json) }
        #expect(error?.kind == .decoding)
        #expect(error?.status == nil)
    }

    @Test func garbledFavoritesAndCommentsAreDecodingErrors() {
        let favorites: [JSONValue] = [
            ["stat": "ok"], ["stat": "ok", "photo": ["total": "lots"]], ["stat": "ok", "photo": ["total": -1]],
            ["photo": ["total": 1]], "ok",
        ]
        for json in favorites {
            let error = #expect(throws: UpstreamError.self) { try FlickrAPIService.decodeFavorites(json) }
            #expect(error?.kind == .decoding, "\(json)")
        }
        let comments: [JSONValue] = [
            ["stat": "ok"], ["stat": "ok", "comments": []], ["stat": "ok", "comments": ["comment": "one"]],
            ["comments": ["comment": []]],
        ]
        for json in comments {
            let error = #expect(throws: UpstreamError.self) { try FlickrAPIService.decodeComments(json) }
            #expect(error?.kind == .decoding, "\(json)")
        }
    }

    @Test func photoURLs() {
        let photo = FlickrPhoto(id: "53012345678", title: "Nap time", server: "65535", secret: "abcdef1234")
        #expect(photo.url == "https://live.staticflickr.com/65535/53012345678_abcdef1234_m.jpg")
        #expect(photo.thumbnailUrl == "https://live.staticflickr.com/65535/53012345678_abcdef1234_s.jpg")
    }

    @Test func percentEncoding() {
        #expect(PercentEncoding.queryComponent("café & crème/1") == "caf%C3%A9%20%26%20cr%C3%A8me%2F1")
        #expect(PercentEncoding.queryComponent("AZaz09-._~") == "AZaz09-._~")
        #expect(PercentEncoding.queryComponent("a+b=c?d#e%f") == "a%2Bb%3Dc%3Fd%23e%25f")
        #expect(PercentEncoding.queryComponent("🐱") == "%F0%9F%90%B1")
        #expect(PercentEncoding.queryComponent("") == "")
        #expect(PercentEncoding.query([(name: "a b", value: "1&2"), (name: "c", value: "")]) == "a%20b=1%262&c=")
    }
}
