import JSON
import Services
import Testing
import Upstreams

/// `flickr.photos.getInfo` and `flickr.photos.comments.getList` bodies, in the shapes Flickr sends, mapped by
/// API.md's rules.
@Suite("Photo detail and comments decoding")
struct PhotoDetailDecodingTests {
    /// A recorded `flickr.photos.getInfo` answer: wrapped texts, HTML and entities in the description, numbers
    /// as strings, `\uXXXX` escapes and `\/` slashes.
    static let getInfo = #"""
        {"photo":{"id":"53012345678","secret":"abcdef1234","server":"65535","farm":66,"dateuploaded":"1688480000",
        "isfavorite":0,"license":"4","safety_level":"0","rotation":0,
        "owner":{"nsid":"12345678@N02","username":"janedoe","realname":"Jane Doe","location":"",
        "iconserver":"65535","iconfarm":66,"path_alias":"janedoe"},
        "title":{"_content":"Nap time"},
        "description":{"_content":"On the sofa, <b>after<\/b> lunch &amp; a \u201cbig\u201d meal.\n<a href=\"https:\/\/www.flickr.com\/groups\/cats\/\" rel=\"noreferrer nofollow\">Cats<\/a> &#8212; caf&#xE9; cr&egrave;me"},
        "visibility":{"ispublic":1,"isfriend":0,"isfamily":0},
        "dates":{"posted":"1688480000","taken":"2023-07-04 15:20:11","takengranularity":"0","takenunknown":"0",
        "lastupdate":"1688490000"},
        "views":"1204","editability":{"cancomment":0,"canaddmeta":0},
        "usage":{"candownload":1,"canblog":0,"canprint":0,"canshare":1},
        "comments":{"_content":"1"},"notes":{"note":[]},"people":{"haspeople":0},
        "tags":{"tag":[
        {"id":"12345678-53012345678-5","author":"12345678@N02","authorname":"janedoe","raw":"cat","_content":"cat","machine_tag":0},
        {"id":"12345678-53012345678-6","author":"12345678@N02","authorname":"janedoe","raw":"Kitten","_content":"kitten","machine_tag":false},
        {"id":"12345678-53012345678-7","author":"12345678@N02","authorname":"janedoe","raw":"Caf\u00e9 Life","_content":"caf\u00e9life","machine_tag":0}]},
        "urls":{"url":[{"type":"photopage","_content":"https:\/\/www.flickr.com\/photos\/janedoe\/53012345678\/"}]},
        "media":"photo"},"stat":"ok"}
        """#

    /// An older answer: no `urls`, no `dates.taken`, an empty real name, `views` as a number, no tags, numbers
    /// as numbers, an empty description and a null path alias.
    static let olderGetInfo = #"""
        {"photo":{"id":"4101234567","secret":"0a1b2c3d4e","server":"4101","farm":5,"dateuploaded":"1262304000",
        "license":0,"owner":{"nsid":"98765432@N00","username":"pixel\u00e9","realname":"","path_alias":null},
        "title":{"_content":""},"description":{"_content":""},
        "dates":{"posted":"1262304000","takengranularity":0,"takenunknown":1,"lastupdate":"0"},
        "views":585,"comments":{"_content":0},"tags":{"tag":[]},"media":"photo"},"stat":"ok"}
        """#

    /// A recorded `flickr.photos.comments.getList` answer, oldest first.
    static let comments = #"""
        {"comments":{"photo_id":"53012345678","comment":[
        {"id":"1234-53012345678-72157","author":"11111111@N00","author_is_deleted":0,"authorname":"samlens",
        "datecreate":"1688551200","permalink":"https:\/\/www.flickr.com\/photos\/janedoe\/53012345678\/#comment72157",
        "path_alias":null,"realname":"Sam","_content":"Lovely light!"},
        {"id":"1234-53012345678-72158","author":"22222222@N00","author_is_deleted":0,"authorname":"j\u00fcrgen_w",
        "datecreate":1688637600,"permalink":"https:\/\/www.flickr.com\/photos\/janedoe\/53012345678\/#comment72158",
        "path_alias":"","realname":"","_content":"Seen in <a href=\"https:\/\/www.flickr.com\/groups\/explore\/\" rel=\"nofollow\">Explore<\/a> &amp; &quot;faved&quot;&#33; Sch&ouml;n<br \/>\n\ud83d\udc4d"}
        ]},"stat":"ok"}
        """#

    static func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    static let napTime = PhotoDetail(
        id: "53012345678", title: "Nap time",
        description: "On the sofa, after lunch & a \u{201C}big\u{201D} meal.\nCats — café crème", owner: "Jane Doe",
        takenAt: "2023-07-04T15:20:11", views: 1204, tags: ["cat", "Kitten", "Café Life"],
        imageUrl: "https://live.staticflickr.com/65535/53012345678_abcdef1234_b.jpg",
        pageUrl: "https://www.flickr.com/photos/janedoe/53012345678/"
    )

    @Test func recordedGetInfoMapsEveryField() throws {
        #expect(try FlickrAPIService.decodePhotoInfo(Self.parse(Self.getInfo)) == Self.napTime)
    }

    @Test func olderGetInfoUsesTheFallbacks() throws {
        let detail = try FlickrAPIService.decodePhotoInfo(Self.parse(Self.olderGetInfo))
        #expect(
            detail
                == PhotoDetail(
                    id: "4101234567", title: "", description: "", owner: "pixelé", takenAt: nil, views: 585, tags: [],
                    imageUrl: "https://live.staticflickr.com/4101/4101234567_0a1b2c3d4e_b.jpg",
                    pageUrl: "https://www.flickr.com/photos/98765432@N00/4101234567/"
                ))
    }

    @Test func detailJSONHasAPIMdFieldNames() throws {
        #expect(
            Self.napTime.json == [
                "id": "53012345678", "title": "Nap time",
                "description": "On the sofa, after lunch & a \u{201C}big\u{201D} meal.\nCats — café crème",
                "owner": "Jane Doe",
                "takenAt": "2023-07-04T15:20:11", "views": 1204, "tags": ["cat", "Kitten", "Café Life"],
                "imageUrl": "https://live.staticflickr.com/65535/53012345678_abcdef1234_b.jpg",
                "pageUrl": "https://www.flickr.com/photos/janedoe/53012345678/",
            ])
        let older = try FlickrAPIService.decodePhotoInfo(Self.parse(Self.olderGetInfo)).json
        #expect(older["takenAt"] == .null)
        #expect(older["views"] == 585)
        let noViews = PhotoDetail(
            id: "1", title: "", description: "", owner: "", takenAt: nil, views: nil, tags: [], imageUrl: "",
            pageUrl: ""
        )
        #expect(noViews.json["views"] == .null)
        #expect(noViews.json.objectValue?.count == 9)
    }

    /// The getInfo fixture with `photo.<key>` replaced by `value` (nil removes it).
    static func variant(_ key: String, _ value: JSONValue?) throws -> JSONValue {
        var json = try parse(getInfo)
        guard case .object(var root) = json, case .object(var photo)? = root["photo"] else {
            throw DecodingTestError()
        }
        photo[key] = value
        root["photo"] = .object(photo)
        json = .object(root)
        return json
    }

    struct DecodingTestError: Error {}

    @Test func ownerIsTheRealNameElseTheUserName() throws {
        func owner(_ owner: JSONValue) throws -> String {
            try FlickrAPIService.decodePhotoInfo(Self.variant("owner", owner)).owner
        }
        #expect(try owner(["nsid": "1@N00", "username": "janedoe", "realname": "Jane Doe"]) == "Jane Doe")
        #expect(try owner(["nsid": "1@N00", "username": "janedoe", "realname": ""]) == "janedoe")
        #expect(try owner(["nsid": "1@N00", "username": "janedoe", "realname": "  "]) == "janedoe")
        #expect(try owner(["nsid": "1@N00", "username": "janedoe"]) == "janedoe")
        #expect(try owner(["nsid": "1@N00", "username": "janedoe", "realname": nil]) == "janedoe")
    }

    @Test(arguments: [
        ("2023-07-04 15:20:11", "2023-07-04T15:20:11"),
        ("1999-12-31 23:59:59", "1999-12-31T23:59:59"),
        ("2024-02-29 00:00:00", "2024-02-29T00:00:00"),
    ])
    func takenAtIsTheLocalTimeWithAT(taken: String, takenAt: String) throws {
        let dates: JSONValue = ["posted": "1688480000", "taken": .string(taken)]
        #expect(try FlickrAPIService.decodePhotoInfo(Self.variant("dates", dates)).takenAt == takenAt)
    }

    @Test(arguments: [
        JSONValue.string(""), "2023-07-04", "2023-07-04T15:20:11", "2023-07-04 15:20", "2023-07-04 15:20:11Z",
        "0000-00-00 00:00:00", "2023-13-01 00:00:00", "2023-07-32 00:00:00", "2023-07-04 24:00:00",
        "2023-07-04 15:60:00", "2023-07-04 15:20:61", "2023/07/04 15:20:11", "２０２３-07-04 15:20:11", 1_688_480_000,
        .null,
    ])
    func malformedTakenIsNull(taken: JSONValue) throws {
        let dates: JSONValue = ["posted": "1688480000", "taken": taken]
        #expect(try FlickrAPIService.decodePhotoInfo(Self.variant("dates", dates)).takenAt == nil)
    }

    @Test func missingDatesIsNull() throws {
        #expect(try FlickrAPIService.decodePhotoInfo(Self.variant("dates", nil)).takenAt == nil)
    }

    @Test func viewsFromAStringOrANumber() throws {
        func views(_ value: JSONValue?) throws -> Int? {
            try FlickrAPIService.decodePhotoInfo(Self.variant("views", value)).views
        }
        #expect(try views("585") == 585)
        #expect(try views(585) == 585)
        #expect(try views(585.0) == 585)
        #expect(try views("0") == 0)
        #expect(try views(nil) == nil)
        #expect(try views(.null) == nil)
        #expect(try views("many") == nil)
        #expect(try views(-3) == nil)
    }

    @Test func tagsAreTheRawTextsInOrder() throws {
        func tags(_ value: JSONValue?) throws -> [String] {
            try FlickrAPIService.decodePhotoInfo(Self.variant("tags", value)).tags
        }
        #expect(
            try tags(["tag": [["raw": "Black & White", "_content": "blackwhite"], ["raw": "NYC", "_content": "nyc"]]])
                == ["Black & White", "NYC"])
        #expect(try tags(["tag": [["_content": "onlynormalised"]]]) == ["onlynormalised"])
        #expect(try tags(["tag": []]) == [])
        #expect(try tags([:]) == [])
        #expect(try tags(nil) == [])
    }

    @Test func pageURLIsThePhotopageElseBuiltFromTheOwner() throws {
        func page(_ urls: JSONValue?) throws -> String {
            try FlickrAPIService.decodePhotoInfo(Self.variant("urls", urls)).pageUrl
        }
        #expect(try page(nil) == "https://www.flickr.com/photos/12345678@N02/53012345678/")
        #expect(try page(["url": []]) == "https://www.flickr.com/photos/12345678@N02/53012345678/")
        #expect(
            try page(["url": [["type": "other", "_content": "https://example.com/"]]])
                == "https://www.flickr.com/photos/12345678@N02/53012345678/")
        #expect(
            try page([
                "url": [
                    ["type": "other", "_content": "https://example.com/"],
                    ["type": "photopage", "_content": "https://www.flickr.com/photos/x/1/"],
                ]
            ])
                == "https://www.flickr.com/photos/x/1/")
        let ownerless = try Self.variant("urls", nil)
        guard case .object(var root) = ownerless, case .object(var photo)? = root["photo"] else {
            throw DecodingTestError()
        }
        photo["owner"] = nil
        root["photo"] = .object(photo)
        #expect(
            try FlickrAPIService.decodePhotoInfo(.object(root)).pageUrl
                == "https://www.flickr.com/photo.gne?id=53012345678")
    }

    @Test func textsMayComeUnwrapped() throws {
        let detail = try FlickrAPIService.decodePhotoInfo(Self.variant("title", "Bare title"))
        #expect(detail.title == "Bare title")
        #expect(try FlickrAPIService.decodePhotoInfo(Self.variant("description", nil)).description == "")
    }

    @Test func theImageIsTheLargeOneOnTheServicesHost() throws {
        let host = FlickrImageHost(baseURL: "http://127.0.0.1:9/images/")
        let detail = try FlickrAPIService.decodePhotoInfo(Self.parse(Self.getInfo), imageHost: host)
        #expect(detail.imageUrl == "http://127.0.0.1:9/images/65535/53012345678_abcdef1234_b.jpg")
        let photo = FlickrPhoto(id: "53012345678", title: "", server: "65535", secret: "abcdef1234", imageHost: host)
        #expect(detail.imageUrl == photo.imageURL(.large1024), "one builder for search and detail")
        #expect(photo.url == "http://127.0.0.1:9/images/65535/53012345678_abcdef1234_m.jpg")
        #expect(photo.thumbnailUrl == "http://127.0.0.1:9/images/65535/53012345678_abcdef1234_s.jpg")
    }

    @Test func searchPhotosTakeTheImageHost() throws {
        let json = FlickrDecodingTests.searchResponse(page: 1, pages: 1, perpage: 2, total: 2)
        let host = FlickrImageHost(baseURL: "http://fake/images")
        let page = try FlickrAPIService.decodeSearch(json, imageHost: host)
        #expect(
            page.photos.map(\.url) == [
                "http://fake/images/65535/53624890009_5cd918efcd_m.jpg",
                "http://fake/images/7372/53624890010_0123456789_m.jpg",
            ])
        #expect(
            try FlickrAPIService.decodeSearch(json).photos.first?.url.hasPrefix("https://live.staticflickr.com/")
                == true)
    }

    @Test(arguments: [
        JSONValue.array([]), ["stat": "ok"], ["stat": "ok", "photo": "x"],
        ["stat": "ok", "photo": ["server": "1", "secret": "a"]], ["stat": "ok", "photo": ["id": "1", "secret": "a"]],
        ["stat": "ok", "photo": ["id": "1", "server": "1"]],
        ["stat": "ok", "photo": ["id": "", "server": "1", "secret": "a"]],
        ["photo": ["id": "1", "server": "1", "secret": "a"]],
    ])
    func garbledGetInfoIsADecodingError(json: JSONValue) {
        let error = #expect(throws: UpstreamError.self) { try FlickrAPIService.decodePhotoInfo(json) }
        #expect(error?.kind == .decoding)
    }

    @Test func statFailIsABusinessError() throws {
        let notFound = try Self.parse(#"{"stat":"fail","code":1,"message":"Photo not found"}"#)
        let expected = UpstreamError(kind: .business, message: "Photo not found", code: 1)
        #expect(throws: expected) { try FlickrAPIService.decodePhotoInfo(notFound) }
        #expect(throws: expected) { try FlickrAPIService.decodePhotoComments(notFound) }
    }

    // MARK: Comments

    @Test func recordedCommentsMapEveryField() throws {
        let comments = try FlickrAPIService.decodePhotoComments(Self.parse(Self.comments))
        #expect(
            comments == [
                PhotoComment(
                    id: "1234-53012345678-72157", author: "Sam", text: "Lovely light!",
                    createdAt: "2023-07-05T10:00:00Z"),
                PhotoComment(
                    id: "1234-53012345678-72158", author: "jürgen_w", text: "Seen in Explore & \"faved\"! Schön\n\n👍",
                    createdAt: "2023-07-06T10:00:00Z"
                ),
            ])
        #expect(
            comments[0].json == [
                "id": "1234-53012345678-72157", "author": "Sam", "text": "Lovely light!",
                "createdAt": "2023-07-05T10:00:00Z",
            ])
    }

    @Test func noCommentListIsEmpty() throws {
        #expect(
            try FlickrAPIService.decodePhotoComments(Self.parse(#"{"comments":{"photo_id":"1"},"stat":"ok"}"#)) == [])
        #expect(
            try FlickrAPIService.decodePhotoComments(["comments": ["photo_id": "1", "comment": nil], "stat": "ok"])
                == [])
        #expect(
            try FlickrAPIService.decodePhotoComments(["comments": ["photo_id": "1", "comment": []], "stat": "ok"]) == []
        )
    }

    @Test func authorIsTheRealNameElseTheAuthorName() throws {
        func author(_ fields: JSONObject) throws -> String {
            var comment: JSONObject = ["id": "1", "datecreate": "0", "_content": ""]
            for (key, value) in fields { comment[key] = value }
            let json: JSONValue = ["comments": ["comment": [.object(comment)]], "stat": "ok"]
            return try FlickrAPIService.decodePhotoComments(json).first?.author ?? "none"
        }
        #expect(try author(["realname": "Sam", "authorname": "samlens"]) == "Sam")
        #expect(try author(["realname": "", "authorname": "samlens"]) == "samlens")
        #expect(try author(["authorname": "samlens"]) == "samlens")
        #expect(try author([:]) == "")
    }

    @Test(arguments: [
        ["comments": ["comment": [["datecreate": "1"]]], "stat": "ok"] as JSONValue,
        ["comments": ["comment": [["id": "1"]]], "stat": "ok"],
        ["comments": ["comment": [["id": "1", "datecreate": "yesterday"]]], "stat": "ok"],
        ["comments": ["comment": [["id": "1", "datecreate": "99999999999999"]]], "stat": "ok"],
        ["comments": ["comment": "one"], "stat": "ok"],
        ["comments": [], "stat": "ok"],
        ["stat": "ok"],
    ])
    func garbledCommentsAreDecodingErrors(json: JSONValue) {
        let error = #expect(throws: UpstreamError.self) { try FlickrAPIService.decodePhotoComments(json) }
        #expect(error?.kind == .decoding)
    }
}
