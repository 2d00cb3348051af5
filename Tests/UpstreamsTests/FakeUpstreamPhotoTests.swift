import EventLoop
import FakeUpstream
import HTTPClient
import JSON
import Logging
import Services
import Testing
import Upstreams

/// The photo detail calls against the real fake upstream on a loopback port, over the real client, and the
/// fake's generated images.
@LoopActor
@Suite("Photo detail and comments against the fake upstream")
struct FakeUpstreamPhotoTests {
    /// Runs `body` with a started fake upstream, a client and a service whose images are on the fake.
    func withFake(_ body: (FakeUpstream, HTTPClient, FlickrAPIService) async throws -> Void) async throws {
        let fake = FakeUpstream(logger: Logger(label: "fake-upstream-photo-test"))
        try fake.start()
        let client = HTTPClient()
        let service = FlickrAPIService(
            client: client, endpoint: fake.baseURL + "/services/rest/", apiKey: "test-key",
            imageHost: FlickrImageHost(baseURL: fake.imageBaseURL)
        )
        do {
            try await body(fake, client, service)
        } catch {
            await fake.shutdown()
            throw error
        }
        await fake.shutdown()
    }

    /// The fake's raw answer for a Flickr method about photo `id`.
    func raw(_ client: HTTPClient, _ fake: FakeUpstream, _ method: String, _ id: String) async throws -> JSONValue {
        let url = "\(fake.baseURL)/services/rest/?method=\(method)&photo_id=\(id)&format=json&nojsoncallback=1"
        let response = try await client.execute(HTTPClientRequest(url: url))
        #expect(response.status == 200)
        return try JSONParser.parse(response.body)
    }

    @Test func detailsOfEverySearchResultAgreeWithTheSearch() async throws {
        try await withFake { fake, client, service in
            let photos = try await service.search(text: "golden retriever", page: 1).photos
            try #require(photos.count == 30)
            for photo in photos {
                let detail = try await service.photoInfo(photoID: photo.id)
                #expect(detail.id == photo.id)
                #expect(detail.title == photo.title)
                #expect(detail.imageUrl == photo.imageURL(.large1024))
                #expect(detail.imageUrl == "\(fake.imageBaseURL)/\(photo.server)/\(photo.id)_\(photo.secret)_b.jpg")
                #expect(!detail.owner.isEmpty)
                #expect(
                    detail.pageUrl.hasPrefix("https://www.flickr.com/photos/")
                        && detail.pageUrl.hasSuffix("/\(photo.id)/"))
                #expect(detail.views != nil)
                #expect(!detail.description.contains("&amp;") && !detail.description.contains("&quot;"))
                if let takenAt = detail.takenAt {
                    #expect(takenAt.utf8.count == 19 && takenAt.contains("T"))
                }
            }
            #expect(fake.requestCount("flickr.photos.getInfo") == 30)
        }
    }

    /// The fake's answers carry Flickr's quirks, and the service reads each of them.
    @Test func theFakesQuirksAreExercised() async throws {
        try await withFake { fake, client, service in
            let photos = try await service.search(text: "street at night", page: 1).photos
            var seen: Set<String> = []
            for photo in photos {
                let info = try await raw(client, fake, "flickr.photos.getInfo", photo.id)
                let detail = try FlickrAPIService.decodePhotoInfo(info)
                let body = try #require(info["photo"])
                #expect(body["title"]?["_content"]?.stringValue == photo.title, "wrapped title")
                if body["views"]?.stringValue != nil { seen.insert("views as a string") }
                if body["views"]?.intValue != nil { seen.insert("views as a number") }
                if body["owner"]?["realname"] == "" {
                    seen.insert("empty realname")
                    #expect(detail.owner == body["owner"]?["username"]?.stringValue)
                }
                if body["urls"] == nil {
                    seen.insert("no urls")
                    let nsid = try #require(body["owner"]?["nsid"]?.stringValue)
                    #expect(detail.pageUrl == "https://www.flickr.com/photos/\(nsid)/\(photo.id)/")
                }
                if body["dates"]?["taken"] == nil {
                    seen.insert("no taken date")
                    #expect(detail.takenAt == nil)
                }
                let description = body["description"]?["_content"]?.stringValue ?? ""
                if description.contains("<") { seen.insert("HTML in a description") }
                if description.contains("&") { seen.insert("entities in a description") }
                for tag in body["tags"]?["tag"]?.arrayValue ?? [] where tag["raw"] != tag["_content"] {
                    seen.insert("raw differs from _content")
                }
                #expect(detail.tags == (body["tags"]?["tag"]?.arrayValue ?? []).compactMap { $0["raw"]?.stringValue })

                let comments = try await raw(client, fake, "flickr.photos.comments.getList", photo.id)
                for comment in comments["comments"]?["comment"]?.arrayValue ?? [] {
                    if comment["realname"] == "" { seen.insert("empty comment realname") }
                    if comment["_content"]?.stringValue?.contains("&") == true { seen.insert("entities in a comment") }
                }
                if comments["comments"]?["comment"] == nil { seen.insert("no comment list") }
            }
            #expect(
                seen == [
                    "views as a string", "views as a number", "empty realname", "no urls", "no taken date",
                    "HTML in a description", "entities in a description", "raw differs from _content",
                    "empty comment realname", "entities in a comment", "no comment list",
                ])
        }
    }

    @Test func answersAreWrittenAsFlickrWritesThem() async throws {
        try await withFake { fake, client, service in
            let photo = try #require(try await service.search(text: "kittens", page: 1).photos.first)
            let url = "\(fake.baseURL)/services/rest/?method=flickr.photos.getInfo&photo_id=\(photo.id)"
            let body = String(decoding: try await client.execute(HTTPClientRequest(url: url)).body, as: UTF8.self)
            #expect(body.contains(#"\/"#))
            #expect(!body.contains("https://"), "every slash is escaped")
            let ascii = body.unicodeScalars.allSatisfy(\.isASCII)
            #expect(ascii, "non-ASCII text is escaped")
        }
    }

    @Test func commentsAreOldestFirstAndPlainText() async throws {
        try await withFake { fake, client, service in
            let photos = try await service.search(text: "harbor lights", page: 1).photos
            var total = 0
            var sawEmpty = false
            for photo in photos {
                let comments = try await service.photoComments(photoID: photo.id)
                #expect(comments.count == (try await service.commentsCount(photoID: photo.id)))
                if comments.isEmpty { sawEmpty = true }
                total += comments.count
                let times = comments.map(\.createdAt)
                #expect(times == times.sorted(), "oldest first")
                for comment in comments {
                    #expect(!comment.id.isEmpty && !comment.author.isEmpty && !comment.text.isEmpty)
                    #expect(
                        !comment.text.contains("<b>") && !comment.text.contains("&amp;")
                            && !comment.text.contains("&quot;"))
                    #expect(comment.createdAt.utf8.count == 20 && comment.createdAt.hasSuffix("Z"))
                }
            }
            #expect(sawEmpty, "a photo without comments has an empty list")
            #expect(total > 0)
        }
    }

    @Test func unknownPhotosAreFlickrsCodeOne() async throws {
        try await withFake { fake, _, service in
            let expected = UpstreamError(kind: .business, message: "Photo not found", code: 1)
            let unknown = [
                "1", "not-a-photo", "", "49999999999", "50000004999x", "50000005000", "500000000001", "60000000000",
            ]
            for id in unknown {
                await #expect(throws: expected, "\(id)") { try await service.photoInfo(photoID: id) }
                await #expect(throws: expected, "\(id)") { try await service.photoComments(photoID: id) }
            }
            #expect(fake.requestCount("flickr.photos.getInfo") == 8)
        }
    }

    @Test func faultsBecomeTheRightErrors() async throws {
        try await withFake { fake, _, service in
            let id = try #require(try await service.search(text: "kittens", page: 1).photos.first?.id)
            fake.behavior = FakeUpstreamBehavior(fault: .business, faultCount: 1)
            await #expect(
                throws: UpstreamError(
                    kind: .business,
                    message: "Invalid API Key (Key has invalid format): "
                        + "/services/rest/?method=flickr.photos.getInfo&api_key=[redacted]",
                    code: 100
                )
            ) { try await service.photoInfo(photoID: id) }

            fake.behavior = FakeUpstreamBehavior(fault: .http500, faultCount: 1)
            let serverError = await #expect(throws: UpstreamError.self) { try await service.photoComments(photoID: id) }
            #expect(serverError?.kind == .upstream)
            #expect(serverError?.status == 500)

            fake.behavior = FakeUpstreamBehavior(fault: .http429, faultCount: 1)
            let tooMany = await #expect(throws: UpstreamError.self) { try await service.photoInfo(photoID: id) }
            #expect(tooMany?.status == 429)

            fake.behavior = FakeUpstreamBehavior(fault: .malformed, faultCount: 1)
            let malformed = await #expect(throws: UpstreamError.self) { try await service.photoInfo(photoID: id) }
            #expect(malformed?.kind == .decoding)

            #expect(try await service.photoInfo(photoID: id).id == id, "normal again")
        }
    }

    @Test func cancellingAbortsTheTransfer() async throws {
        try await withFake { fake, client, service in
            fake.behavior = FakeUpstreamBehavior(latency: .seconds(30))
            let info = Task { @LoopActor in try await service.photoInfo(photoID: "50000000001") }
            let comments = Task { @LoopActor in try await service.photoComments(photoID: "50000000001") }
            for _ in 0..<1000 where client.activeTransfers < 2 { try await LoopClock().sleep(for: .milliseconds(2)) }
            try #require(client.activeTransfers == 2)
            info.cancel()
            comments.cancel()
            await #expect(throws: CancellationError.self) { try await info.value }
            await #expect(throws: CancellationError.self) { try await comments.value }
            for _ in 0..<500 where client.activeTransfers > 0 { try await LoopClock().sleep(for: .milliseconds(2)) }
            #expect(client.activeTransfers == 0, "the upstream transfers were aborted")
        }
    }

    // MARK: Images

    @Test func theFakeServesAnImageForEveryPhotoURL() async throws {
        try await withFake { fake, client, service in
            let photos = try await service.search(text: "kittens", page: 1).photos.prefix(3)
            var bodies: Set<[UInt8]> = []
            for photo in photos {
                let detail = try await service.photoInfo(photoID: photo.id)
                for (url, width, height) in [
                    (photo.thumbnailUrl, 75, 75), (photo.url, 240, 180), (detail.imageUrl, 1024, 768),
                ] {
                    let response = try await client.execute(HTTPClientRequest(url: url))
                    #expect(response.status == 200, "\(url)")
                    #expect(response.headers.first { $0.name.lowercased() == "content-type" }?.value == "image/svg+xml")
                    let svg = String(decoding: response.body, as: UTF8.self)
                    #expect(
                        svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)""#)
                    )
                    #expect(svg.hasSuffix("</svg>"))
                    #expect(Self.isBalancedXML(svg), "well-formed: \(svg)")
                    bodies.insert(response.body)
                }
            }
            #expect(bodies.count == 9, "each photo and size has its own picture")
            #expect(fake.requestCount("/images") == 9)
        }
    }

    @Test func unknownImagesAreNotFound() async throws {
        try await withFake { fake, client, service in
            let photo = try #require(try await service.search(text: "kittens", page: 1).photos.first)
            let good = "\(fake.imageBaseURL)/\(photo.server)/\(photo.id)_\(photo.secret)"
            #expect(try await client.execute(HTTPClientRequest(url: good + ".jpg")).status == 200, "the 500 px size")
            for url in [
                good + "_x.jpg", good + "_b.png", "\(fake.imageBaseURL)/\(photo.server)/\(photo.id)_0000000000_b.jpg",
                "\(fake.imageBaseURL)/1/\(photo.id)_\(photo.secret)_b.jpg",
                "\(fake.imageBaseURL)/\(photo.server)/1_2_b.jpg",
                "\(fake.imageBaseURL)/\(photo.server)/\(photo.id).jpg",
            ] {
                #expect(try await client.execute(HTTPClientRequest(url: url)).status == 404, "\(url)")
            }
        }
    }

    @Test func imagesIgnoreFaults() async throws {
        try await withFake { fake, client, service in
            let photo = try #require(try await service.search(text: "kittens", page: 1).photos.first)
            fake.behavior = FakeUpstreamBehavior(fault: .http500)
            #expect(try await client.execute(HTTPClientRequest(url: photo.url)).status == 200)
            let error = await #expect(throws: UpstreamError.self) { try await service.photoInfo(photoID: photo.id) }
            #expect(error?.status == 500)
        }
    }

    /// Whether every element of `xml` is closed in order (a small check that the SVG is well-formed).
    static func isBalancedXML(_ xml: String) -> Bool {
        var open: [Substring] = []
        var rest = Substring(xml)
        while let start = rest.firstIndex(of: "<") {
            guard let end = rest[start...].firstIndex(of: ">") else { return false }
            let tag = rest[rest.index(after: start)..<end]
            rest = rest[rest.index(after: end)...]
            if tag.hasPrefix("/") {
                guard open.popLast() == tag.dropFirst() else { return false }
            } else if !tag.hasSuffix("/") {
                open.append(tag.prefix { $0 != " " })
            }
        }
        return open.isEmpty
    }
}
