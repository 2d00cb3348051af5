import JSON

/// The deterministic photo world of the fake Flickr API: every answer depends only on the request.
///
/// A search for a text has 1...5000 photos (0 when the text contains "nothing"); odd pages send
/// `page`/`pages`/`perpage`/`total` as strings and even pages as numbers, as real Flickr mixes both.
/// A photo has 0...250 favorites (the total is a string for some photos) and 0...5 comments (with no
/// comments the `comment` key is left out); its details are ``FakeFlickrPhoto``'s.
enum FlickrFixtures {
    static let maxTotal = 5000
    static let defaultPerPage = 100
    static let maxPerPage = 500

    /// Comments as Flickr sends them: HTML and entities inside.
    private static let remarks = [
        "Love this!", "Beautiful light.", "Great <b>composition</b>!", "Wow, what a shot &amp; what colours.",
        "Seen in <a href=\"https://www.flickr.com/groups/explore/\" rel=\"noreferrer nofollow\">Explore</a>.",
        "&quot;Stunning&quot; is the word.", "This made my day &lt;3", "Superb colours! &#x1F44D;",
        "Magnifique&nbsp;!<br />\nBravo.",
    ]

    // MARK: flickr.photos.search

    /// The number of photos found for `text`.
    static func total(for text: String) -> Int {
        if text.allSatisfy(\.isWhitespace) || text.lowercased().contains("nothing") { return 0 }
        return 1 + Int(StableHash.fnv1a(text) % UInt64(maxTotal))
    }

    /// The `flickr.photos.search` answer; `empty` finds nothing whatever the text.
    static func search(
        text: String, page requestedPage: Int, perPage requestedPerPage: Int, empty: Bool = false
    ) -> JSONValue {
        let perPage = min(max(requestedPerPage, 1), maxPerPage)
        let page = max(requestedPage, 1)
        let total = empty ? 0 : total(for: text)
        let pages = (total + perPage - 1) / perPage
        let seed = StableHash.fnv1a(text)
        let start = (page - 1) * perPage
        let photos =
            start < total
            ? (start..<min(start + perPage, total)).map { FakeFlickrPhoto(seed: seed, index: $0).searchEntry } : []
        let asStrings = page % 2 == 1
        func number(_ value: Int) -> JSONValue { asStrings ? .string(String(value)) : .int(value) }
        return [
            "photos": [
                "page": number(page), "pages": number(pages), "perpage": number(perPage), "total": number(total),
                "photo": .array(photos),
            ],
            "stat": "ok",
        ]
    }

    // MARK: flickr.photos.getFavorites

    /// The number of favorites of `photoID`: mostly small, now and then a popular photo.
    static func favoritesTotal(photoID: String) -> Int {
        let hash = StableHash.fnv1a(photoID)
        return StableHash.pick(hash, 1, count: 10) == 0
            ? 100 + StableHash.pick(hash, 2, count: 151)
            : StableHash.pick(hash, 3, count: 40)
    }

    /// The `flickr.photos.getFavorites` answer (first page of up to 10 people); `total` is a string when
    /// the photo's hash is odd.
    static func favorites(photoID: String) -> JSONValue {
        let hash = StableHash.fnv1a(photoID)
        let total = favoritesTotal(photoID: photoID)
        let perPage = 10
        let people: [JSONValue] = (0..<min(total, perPage)).map { index in
            let seed = StableHash.mix(hash, UInt64(100 + index))
            let fan = person(seed)
            return [
                "nsid": .string(fan.nsid), "username": .string(fan.username),
                "favedate": .string(String(1_600_000_000 + Int(seed % 100_000_000))),
            ]
        }
        let pages = max((total + perPage - 1) / perPage, 1)
        return [
            "photo": [
                "person": .array(people), "id": .string(photoID),
                "secret": .string(hex(hash & 0xFF_FFFF_FFFF, digits: 10)), "server": "65535", "farm": 66,
                "page": 1, "pages": .int(pages), "perpage": .int(perPage),
                "total": hash % 2 == 1 ? .string(String(total)) : .int(total),
            ],
            "stat": "ok",
        ]
    }

    // MARK: flickr.photos.comments.getList

    /// The number of comments of `photoID` (0...5).
    static func commentsCount(photoID: String) -> Int {
        StableHash.pick(StableHash.fnv1a(photoID), 5, count: 6)
    }

    /// The `flickr.photos.comments.getList` answer, oldest first; without comments the `comment` key is absent.
    static func comments(photoID: String) -> JSONValue {
        let hash = StableHash.fnv1a(photoID)
        let count = commentsCount(photoID: photoID)
        var body: JSONObject = ["photo_id": .string(photoID)]
        let photo = FakeFlickrPhoto(id: photoID)
        let page = "https://www.flickr.com/photos/\(photo.map { person($0.owner).nsid } ?? "unknown")/\(photoID)/"
        var created = photo?.posted ?? 1_500_000_000
        if count > 0 {
            body["comment"] = .array(
                (0..<count).map { index in
                    let seed = StableHash.mix(hash, UInt64(200 + index))
                    let author = person(seed)
                    let commentID = "\(author.nsid.prefix(8))-\(photoID)-\(72_157_000_000_000 + index)"
                    created += 60 + Int(seed % 2_000_000)
                    return [
                        "id": .string(commentID), "author": .string(author.nsid), "author_is_deleted": 0,
                        "authorname": .string(author.username), "datecreate": .string(String(created)),
                        "permalink": .string("\(page)#comment\(commentID)"),
                        "path_alias": author.pathAlias, "realname": .string(author.realname),
                        "_content": .string(remarks[StableHash.pick(seed, 9, count: remarks.count)]),
                    ]
                })
        }
        return ["comments": .object(body), "stat": "ok"]
    }

    // MARK: Helpers

    /// A Flickr member.
    struct Person {
        var nsid: String
        var username: String
        /// Often empty, as on Flickr.
        var realname: String
        /// `null`, `""` or a name, as Flickr mixes them.
        var pathAlias: JSONValue
    }

    /// The member derived from `value`.
    static func person(_ value: UInt64) -> Person {
        let username = FakeFlickrPhoto.username(value)
        let pathAlias: JSONValue =
            switch value / 5 % 3 {
            case 0: .null
            case 1: ""
            default: .string(username.filter { $0.isLetter || $0.isNumber })
            }
        return Person(
            nsid: "\(10_000_000 + Int(value % 190_000_000))@N0\(value % 8)", username: username,
            realname: FakeFlickrPhoto.realname(value), pathAlias: pathAlias
        )
    }

    static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(digits - text.count, 0)) + text
    }
}
