import JSON

/// One photo of the fake Flickr world, every fact derived from its id alone, so that a search result, its
/// `flickr.photos.getInfo` answer, its comments and its image agree.
///
/// Ids are those the fake search hands out: `50_000_000_000 + 10_000 * k + index` with `k` below 1,000,000 and
/// `index` below ``FlickrFixtures/maxTotal``; any other id is unknown (Flickr's code 1).
struct FakeFlickrPhoto {
    let id: String
    /// ``StableHash/fnv1a(_:)`` of the id: the seed of every fact.
    let hash: UInt64

    private static let servers = ["65535", "65535", "65535", "7372", "4101", "31337"]
    private static let adjectives = [
        "Golden", "Quiet", "Misty", "Curious", "Sleepy", "Bright", "Hidden", "Wild", "Frozen", "Lazy", "Early",
        "Distant", "Little", "Ancient", "Electric", "Velvet",
    ]
    private static let nouns = [
        "Harbor", "Meadow", "Kitten", "Lighthouse", "Alley", "Forest", "Bridge", "Market", "Sunrise", "Fox",
        "Cathedral", "Garden", "River", "Skyline", "Owl", "Train",
    ]
    /// Descriptions as Flickr sends them: HTML inside, entities, line breaks, non-ASCII; often empty.
    private static let descriptions = [
        "",
        "",
        "Taken on a quiet morning by the harbor.\n\nMore in my <a href=\"https://www.flickr.com/photos/me/albums\" "
            + "rel=\"noreferrer nofollow\">albums</a>.",
        "<b>Golden hour</b> at the lake &amp; the hills &#8212; no filter.",
        "&quot;Light is everything.&quot; Shot at the caf&#233; on the corner &#x2615;",
        "50mm lens &lt;f/1.8&gt;, ISO 100.<br />\nEdited in Lightroom &amp; Photoshop.",
        "Über den Dächern — 東京の夜 <i>(handheld)</i>",
        "<p>Seen in <a href=\"https://www.flickr.com/groups/explore/\">Explore</a>!</p><p>Thank you all.</p>",
    ]
    /// Tags as the owner typed them (`raw`); `_content` is the normalised form.
    private static let tagPool = [
        "Golden Hour", "cat", "Kitten", "Black & White", "Café", "long exposure", "Nikon D750", "NYC", "sunset",
        "Street Photography", "München", "bokeh",
    ]
    private static let usernames = ["ansel_fan", "nightowl", "marta.k", "lens_and_light", "pixelpilgrim", "jo_travels"]
    private static let realnames = ["Zoë Martín", "Jürgen Weiß", "Ana Lúcia", "李娜", "Tom O'Brien", "Marta Kowalska"]

    /// The photo with `id`, or nil when the fake world has no such photo.
    init?(id: String) {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard id.utf8.count == 11, id.utf8.allSatisfy({ digits.contains($0) }), let value = Int(id),
            (50_000_000_000..<60_000_000_000).contains(value), value % 10_000 < FlickrFixtures.maxTotal
        else {
            return nil
        }
        self.id = id
        hash = StableHash.fnv1a(id)
    }

    /// The photo number `index` of the search whose text hashes to `seed`.
    init(seed: UInt64, index: Int) {
        id = String(50_000_000_000 + Int(seed % 1_000_000) * 10_000 + index)
        hash = StableHash.fnv1a(id)
    }

    var secret: String { FlickrFixtures.hex(StableHash.mix(hash, 1) & 0xFF_FFFF_FFFF, digits: 10) }
    var server: String { Self.servers[StableHash.pick(hash, 2, count: Self.servers.count)] }

    var title: String {
        guard StableHash.pick(hash, 3, count: 17) != 0 else { return "" }
        return Self.adjectives[StableHash.pick(hash, 4, count: Self.adjectives.count)] + " "
            + Self.nouns[StableHash.pick(hash, 5, count: Self.nouns.count)]
    }

    /// The owner, as a seed for ``FlickrFixtures/person(_:)``.
    var owner: UInt64 { StableHash.mix(hash, 6) }

    /// When it was uploaded (Unix seconds).
    var posted: Int { 1_400_000_000 + Int(hash % 300_000_000) }

    /// The entry of a `flickr.photos.search` answer.
    var searchEntry: JSONValue {
        [
            "id": .string(id), "owner": .string(FlickrFixtures.person(owner).nsid), "secret": .string(secret),
            "server": .string(server), "farm": 66, "title": .string(title), "ispublic": 1, "isfriend": 0,
            "isfamily": 0,
        ]
    }

    /// The `flickr.photos.getInfo` answer, with Flickr's quirks: `_content` wrappers, `views` as a string
    /// (sometimes a number), numbers as strings in some photos, no `urls` or no `dates.taken` in others.
    var info: JSONValue {
        let person = FlickrFixtures.person(owner)
        let mixed = hash % 2 == 0  // NB: some answers send numbers as strings, others as numbers.
        func number(_ value: Int) -> JSONValue { mixed ? .string(String(value)) : .int(value) }
        var dates: JSONObject = [
            "posted": .string(String(posted)), "takengranularity": number(0), "takenunknown": number(0),
            "lastupdate": .string(String(posted + 86_400 * StableHash.pick(hash, 7, count: 400))),
        ]
        if StableHash.pick(hash, 8, count: 6) != 0 { dates["taken"] = .string(taken) }
        let views = 3 + StableHash.pick(hash, 9, count: 20_000)
        let commentCount = FlickrFixtures.commentsCount(photoID: id)
        var photo: JSONObject = [
            "id": .string(id), "secret": .string(secret), "server": .string(server), "farm": 66,
            "dateuploaded": .string(String(posted)), "isfavorite": 0,
            "license": number(StableHash.pick(hash, 10, count: 11)),
            "safety_level": "0", "rotation": 0,
            "owner": [
                "nsid": .string(person.nsid), "username": .string(person.username),
                "realname": .string(person.realname),
                "location": "", "iconserver": "65535", "iconfarm": 66, "path_alias": person.pathAlias,
            ],
            "title": ["_content": .string(title)],
            "description": [
                "_content": .string(Self.descriptions[StableHash.pick(hash, 11, count: Self.descriptions.count)])
            ],
            "visibility": ["ispublic": 1, "isfriend": 0, "isfamily": 0],
            "dates": .object(dates),
            "views": StableHash.pick(hash, 12, count: 4) == 0 ? .int(views) : .string(String(views)),
            "editability": ["cancomment": 0, "canaddmeta": 0],
            "usage": ["candownload": 1, "canblog": 0, "canprint": 0, "canshare": 1],
            "comments": ["_content": number(commentCount)],
            "notes": ["note": []],
            "people": ["haspeople": 0],
            "tags": ["tag": .array(tags(of: person))],
            "media": "photo",
        ]
        if StableHash.pick(hash, 13, count: 5) != 0 {
            let alias = person.pathAlias.stringValue ?? ""
            let page = "https://www.flickr.com/photos/\(alias.isEmpty ? person.nsid : alias)/\(id)/"
            photo["urls"] = ["url": [["type": "photopage", "_content": .string(page)]]]
        }
        return ["photo": .object(photo), "stat": "ok"]
    }

    /// `YYYY-MM-DD HH:MM:SS`, the camera's local time.
    private var taken: String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let value = StableHash.mix(hash, 14)
        let year = 2005 + Int(value % 20)
        let month = 1 + Int(value / 20 % 12)
        let day = 1 + Int(value / 240 % 28)
        let seconds = Int(value / 6_720 % 86_400)
        return "\(year)-\(two(month))-\(two(day)) \(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }

    private func tags(of person: FlickrFixtures.Person) -> [JSONValue] {
        let count = StableHash.pick(hash, 15, count: 5)
        let first = StableHash.pick(hash, 16, count: Self.tagPool.count)
        return (0..<count).map { offset in
            let raw = Self.tagPool[(first + offset * 5) % Self.tagPool.count]
            return [
                "id": .string("\(person.nsid.prefix(8))-\(id)-\(1000 + offset)"), "author": .string(person.nsid),
                "authorname": .string(person.username), "raw": .string(raw),
                "_content": .string(String(raw.lowercased().filter { $0.isLetter || $0.isNumber })),
                "machine_tag": offset % 2 == 0 ? .int(0) : .bool(false),
            ]
        }
    }

    static func username(_ value: UInt64) -> String { usernames[Int(value % UInt64(usernames.count))] }

    /// Empty for a third of the people, as Flickr's `realname` often is.
    static func realname(_ value: UInt64) -> String {
        value / 7 % 3 == 0 ? "" : realnames[Int(value / 21 % UInt64(realnames.count))]
    }
}
