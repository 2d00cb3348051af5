import JSON

/// The deterministic photo world of the fake Flickr API: every answer depends only on the request.
///
/// A search for a text has 1...5000 photos (0 when the text contains "nothing"); odd pages send
/// `page`/`pages`/`perpage`/`total` as strings and even pages as numbers, as real Flickr mixes both.
/// A photo has 0...250 favorites (the total is a string for some photos) and 0...5 comments (with no
/// comments the `comment` key is left out).
enum FlickrFixtures {
    static let maxTotal = 5000
    static let defaultPerPage = 100
    static let maxPerPage = 500

    private static let adjectives = [
        "Golden", "Quiet", "Misty", "Curious", "Sleepy", "Bright", "Hidden", "Wild", "Frozen", "Lazy", "Early",
        "Distant", "Little", "Ancient", "Electric", "Velvet",
    ]
    private static let nouns = [
        "Harbor", "Meadow", "Kitten", "Lighthouse", "Alley", "Forest", "Bridge", "Market", "Sunrise", "Fox",
        "Cathedral", "Garden", "River", "Skyline", "Owl", "Train",
    ]
    private static let servers = ["65535", "65535", "65535", "7372", "4101", "31337"]
    private static let people = ["ansel_fan", "nightowl", "marta.k", "lens_and_light", "pixelpilgrim", "jo_travels"]
    private static let remarks = [
        "Love this!", "Beautiful light.", "Great composition.", "Wow, what a shot.", "Superb colours!",
        "Seen in the group Explore.", "Stunning.", "This made my day.",
    ]

    // MARK: flickr.photos.search

    /// The number of photos found for `text`.
    static func total(for text: String) -> Int {
        if text.allSatisfy(\.isWhitespace) || text.lowercased().contains("nothing") { return 0 }
        return 1 + Int(StableHash.fnv1a(text) % UInt64(maxTotal))
    }

    /// The `flickr.photos.search` answer.
    static func search(text: String, page requestedPage: Int, perPage requestedPerPage: Int) -> JSONValue {
        let perPage = min(max(requestedPerPage, 1), maxPerPage)
        let page = max(requestedPage, 1)
        let total = total(for: text)
        let pages = (total + perPage - 1) / perPage
        let seed = StableHash.fnv1a(text)
        let start = (page - 1) * perPage
        let photos = start < total ? (start..<min(start + perPage, total)).map { photo(seed: seed, index: $0) } : []
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

    /// Photo number `index` (0-based) of the search with hash `seed`; ids are unique within one search.
    private static func photo(seed: UInt64, index: Int) -> JSONValue {
        let salt = UInt64(index)
        let id = 50_000_000_000 + Int(seed % 1_000_000) * 10_000 + index
        let secret = hex(StableHash.mix(seed, salt) & 0xFF_FFFF_FFFF, digits: 10)
        let server = servers[StableHash.pick(seed, salt &+ 7, count: servers.count)]
        let title: String
        if StableHash.pick(seed, salt &+ 11, count: 17) == 0 {
            title = ""
        } else {
            let adjective = adjectives[StableHash.pick(seed, salt &+ 13, count: adjectives.count)]
            let noun = nouns[StableHash.pick(seed, salt &+ 17, count: nouns.count)]
            title = "\(adjective) \(noun)"
        }
        return [
            "id": .string(String(id)), "owner": .string(owner(StableHash.mix(seed, salt &+ 19))),
            "secret": .string(secret), "server": .string(server), "farm": 66, "title": .string(title),
            "ispublic": 1, "isfriend": 0, "isfamily": 0,
        ]
    }

    // MARK: flickr.photos.getFavorites

    /// The number of favorites of `photoID`: mostly small, now and then a popular photo.
    static func favoritesTotal(photoID: String) -> Int {
        let hash = StableHash.fnv1a(photoID)
        return StableHash.pick(hash, 1, count: 10) == 0 ? 100 + StableHash.pick(hash, 2, count: 151)
            : StableHash.pick(hash, 3, count: 40)
    }

    /// The `flickr.photos.getFavorites` answer (first page of up to 10 people); `total` is a string when
    /// the photo's hash is odd.
    static func favorites(photoID: String) -> JSONValue {
        let hash = StableHash.fnv1a(photoID)
        let total = favoritesTotal(photoID: photoID)
        let perPage = 10
        let people: [JSONValue] = (0..<min(total, perPage)).map { index in
            let person = StableHash.mix(hash, UInt64(100 + index))
            return [
                "nsid": .string(owner(person)), "username": .string(name(person)),
                "favedate": .string(String(1_600_000_000 + Int(person % 100_000_000))),
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

    /// The `flickr.photos.comments.getList` answer; without comments the `comment` key is absent.
    static func comments(photoID: String) -> JSONValue {
        let hash = StableHash.fnv1a(photoID)
        let count = commentsCount(photoID: photoID)
        var body: JSONObject = ["photo_id": .string(photoID)]
        if count > 0 {
            body["comment"] = .array((0..<count).map { index in
                let author = StableHash.mix(hash, UInt64(200 + index))
                let created = 1_500_000_000 + Int(author % 200_000_000)
                return [
                    "id": .string("\(photoID)-\(72_157_000_000_000 + index)"), "author": .string(owner(author)),
                    "authorname": .string(name(author)), "datecreate": .string(String(created)),
                    "_content": .string(remarks[StableHash.pick(author, 9, count: remarks.count)]),
                ]
            })
        }
        return ["comments": .object(body), "stat": "ok"]
    }

    // MARK: Helpers

    /// A photo id is a string of digits, as Flickr's.
    static func isValidPhotoID(_ id: String) -> Bool {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        return !id.isEmpty && id.utf8.count <= 20 && id.utf8.allSatisfy { digits.contains($0) }
    }

    private static func owner(_ value: UInt64) -> String {
        "\(10_000_000 + Int(value % 190_000_000))@N0\(value % 8)"
    }

    private static func name(_ value: UInt64) -> String {
        people[Int(value % UInt64(people.count))]
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(digits - text.count, 0)) + text
    }
}
