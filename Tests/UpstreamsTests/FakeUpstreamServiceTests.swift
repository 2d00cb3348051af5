import EventLoop
import FakeUpstream
import HTTPClient
import JSON
import Logging
import Services
import Testing
import Upstreams

/// The Flickr and DummyJSON services against the real fake upstream on a loopback port, over the real client.
@LoopActor
@Suite("Flickr and DummyJSON services against the fake upstream")
struct FakeUpstreamServiceTests {
    /// Runs `body` with a started fake upstream and a client, and always shuts the fake down.
    func withFake(_ body: (FakeUpstream, HTTPClient) async throws -> Void) async throws {
        let fake = FakeUpstream(logger: Logger(label: "fake-upstream-test"))
        try fake.start()
        do {
            try await body(fake, HTTPClient())
        } catch {
            await fake.shutdown()
            throw error
        }
        await fake.shutdown()
    }

    func flickr(_ fake: FakeUpstream, _ client: HTTPClient, apiKey: String? = "test-key") -> FlickrAPIService {
        FlickrAPIService(client: client, endpoint: fake.baseURL + "/services/rest/", apiKey: apiKey)
    }

    /// The fake's raw answer for a Flickr method, to look at the quirks the service smooths over.
    func raw(_ client: HTTPClient, _ fake: FakeUpstream, _ query: String) async throws -> JSONValue {
        let response = try await client.execute(HTTPClientRequest(url: "\(fake.baseURL)/services/rest/?\(query)"))
        #expect(response.status == 200)
        return try JSONParser.parse(response.body)
    }

    // MARK: Flickr

    @Test func searchPagesOneAndTwo() async throws {
        try await withFake { fake, client in
            let service = flickr(fake, client)
            let first = try await service.search(text: "kittens", page: 1)
            try #require(first.total > 60, "the fixture gives 'kittens' more than two pages of 30")
            #expect(first.page == 1)
            #expect(first.pages == (first.total + 29) / 30)
            #expect(first.photos.count == 30)
            let second = try await service.search(text: "kittens", page: 2)
            #expect(second.page == 2)
            #expect(second.total == first.total)
            #expect(second.pages == first.pages)
            #expect(second.photos.count == 30)
            #expect(Set(first.photos.map(\.id)).isDisjoint(with: second.photos.map(\.id)))
            for photo in first.photos + second.photos {
                #expect(!photo.id.isEmpty && photo.id.allSatisfy(\.isNumber))
                #expect(photo.secret.count == 10 && photo.secret.allSatisfy(\.isHexDigit))
                #expect(photo.url == "https://live.staticflickr.com/\(photo.server)/\(photo.id)_\(photo.secret)_m.jpg")
            }
            let again = try await service.search(text: "kittens", page: 1)
            #expect(again == first, "deterministic")
            #expect(fake.requestCount("flickr.photos.search") == 3)
            #expect(fake.lastFlickrSearchText == "kittens")
        }
    }

    @Test func searchQuirksReachTheServiceInBothShapes() async throws {
        try await withFake { fake, client in
            let odd = try await raw(client, fake, "method=flickr.photos.search&text=kittens&page=1&per_page=30")
            let even = try await raw(client, fake, "method=flickr.photos.search&text=kittens&page=2&per_page=30")
            #expect(odd["photos"]?["total"]?.stringValue != nil, "odd pages send numbers as strings")
            #expect(even["photos"]?["total"]?.intValue != nil, "even pages send numbers")
            #expect(try FlickrAPIService.decodeSearch(odd).total == FlickrAPIService.decodeSearch(even).total)
        }
    }

    @Test func searchForNothingFindsNothing() async throws {
        try await withFake { fake, client in
            let page = try await flickr(fake, client).search(text: "nothing at all", page: 1)
            #expect(page.total == 0)
            #expect(page.photos.isEmpty)
        }
    }

    @Test func favoritesAndCommentsCounts() async throws {
        try await withFake { fake, client in
            let service = flickr(fake, client)
            let photos = try await service.search(text: "lighthouse at dusk", page: 1).photos
            try #require(photos.count == 30)
            var favoriteShapes: Set<String> = []
            var sawMissingCommentList = false
            for photo in photos {
                let favorites = try await service.favoritesCount(photoID: photo.id)
                let rawFavorites = try await raw(client, fake, "method=flickr.photos.getFavorites&photo_id=" + photo.id)
                let total = try #require(rawFavorites["photo"]?["total"])
                favoriteShapes.insert(total.stringValue != nil ? "string" : "number")
                #expect(favorites == total.lenientInt)

                let comments = try await service.commentsCount(photoID: photo.id)
                let rawComments = try await raw(
                    client, fake, "method=flickr.photos.comments.getList&photo_id=" + photo.id
                )
                let list = rawComments["comments"]?["comment"]
                if list == nil { sawMissingCommentList = true }
                #expect(comments == (list?.arrayValue?.count ?? 0))
                #expect((0...5).contains(comments))
            }
            #expect(favoriteShapes == ["string", "number"], "both shapes of 'total' were exercised")
            #expect(sawMissingCommentList, "some photo has no comments and no 'comment' key")
            #expect(fake.requestCount("flickr.photos.getFavorites") == 60)
            #expect(fake.requestCount("flickr.photos.comments.getList") == 60)
        }
    }

    @Test func unknownMethodAndInvalidPhotoAreFlickrFailures() async throws {
        try await withFake { fake, client in
            let unknown = try await raw(client, fake, "method=flickr.photos.nope")
            let expected = UpstreamError(kind: .business, message: #"Method "flickr.photos.nope" not found"#, code: 112)
            #expect(throws: expected) {
                try FlickrAPIService.decodeSearch(unknown)
            }
            #expect(fake.requestCount("flickr.unknown") == 1)
            let error = await #expect(throws: UpstreamError.self) {
                try await flickr(fake, client).favoritesCount(photoID: "not-a-photo")
            }
            #expect(error?.kind == .business)
            #expect(error?.code == 1)
        }
    }

    @Test func percentEncodedTextArrivesIntact() async throws {
        try await withFake { fake, client in
            let service = flickr(fake, client)
            for text in ["café & crème/1", "a+b=c?d#e%f", "🐱 kittens"] {
                _ = try await service.search(text: text, page: 1)
                #expect(fake.lastFlickrSearchText == text)
            }
        }
    }

    @Test func faultsBecomeTheRightErrors() async throws {
        try await withFake { fake, client in
            let service = flickr(fake, client, apiKey: "SECRET-KEY-123")
            fake.behavior = FakeUpstreamBehavior(fault: .http429, faultCount: 1)
            let tooMany = await #expect(throws: UpstreamError.self) {
                try await service.search(text: "kittens", page: 1)
            }
            #expect(tooMany?.kind == .upstream)
            #expect(tooMany?.status == 429)

            fake.behavior = FakeUpstreamBehavior(fault: .business, faultCount: 1)
            let business = await #expect(throws: UpstreamError.self) {
                try await service.search(text: "kittens", page: 1)
            }
            // The fake echoes the request (with its `api_key`), as upstream messages sometimes do: the key is
            // redacted from the decoded failure too, not only from the transport's errors.
            #expect(
                business
                    == UpstreamError(
                        kind: .business,
                        message: "Invalid API Key (Key has invalid format): "
                            + "/services/rest/?method=flickr.photos.search&api_key=[redacted]",
                        status: nil, code: 100
                    ))

            fake.behavior = FakeUpstreamBehavior(fault: .malformed, faultCount: 1)
            let malformed = await #expect(throws: UpstreamError.self) { try await service.commentsCount(photoID: "1") }
            #expect(malformed?.kind == .decoding)

            fake.behavior = FakeUpstreamBehavior(fault: .http500, faultCount: 1)
            let serverError = await #expect(throws: UpstreamError.self) {
                try await service.favoritesCount(photoID: "1")
            }
            #expect(serverError?.kind == .upstream)
            #expect(serverError?.status == 500)

            for error in [tooMany, business, malformed, serverError] {
                #expect(error?.message.contains("SECRET-KEY-123") == false)
            }
            let recovered = try await service.search(text: "kittens", page: 1)
            #expect(!recovered.photos.isEmpty, "normal again")
        }
    }

    @Test func theAPIKeyNeverAppearsInErrorMessages() async throws {
        // An invalid URL makes the client report the URL (without its query); the service also redacts the key.
        let key = "s3cr3t/key&é"
        let service = FlickrAPIService(client: HTTPClient(), endpoint: "ftp://127.0.0.1/services/rest/", apiKey: key)
        let error = await #expect(throws: UpstreamError.self) { try await service.search(text: "kittens", page: 1) }
        #expect(error?.kind == .network)
        let message = error?.message ?? key
        #expect(!message.contains(key))
        #expect(!message.contains(PercentEncoding.queryComponent(key)))
        #expect(message.contains("ftp://127.0.0.1/services/rest/"), "the message still says which URL failed")
    }

    @Test func requestURLs() {
        let client = HTTPClient()
        let keyed = FlickrAPIService(client: client, endpoint: "http://127.0.0.1:9/rest/", apiKey: "k y", perPage: 50)
        #expect(
            keyed.url(method: "flickr.photos.search", [(name: "text", value: "a&b")])
                == "http://127.0.0.1:9/rest/?method=flickr.photos.search&api_key=k%20y&text=a%26b"
                + "&format=json&nojsoncallback=1"
        )
        let keyless = FlickrAPIService(client: client, endpoint: "http://127.0.0.1:9/rest?proxy=1", apiKey: nil)
        #expect(
            keyless.url(method: "flickr.photos.getFavorites", [(name: "photo_id", value: "42")])
                == "http://127.0.0.1:9/rest?proxy=1&method=flickr.photos.getFavorites&photo_id=42"
                + "&format=json&nojsoncallback=1"
        )
    }

    @Test func searchSendsTheDocumentedParameters() async throws {
        try await withFake { fake, client in
            let service = FlickrAPIService(
                client: client, endpoint: fake.baseURL + "/services/rest/", apiKey: nil, perPage: 7
            )
            let page = try await service.search(text: "harbor lights", page: 3)
            #expect(page.page == 3)
            #expect(page.photos.count == min(7, max(page.total - 14, 0)))
            #expect(page.pages == (page.total + 6) / 7)
        }
    }

    // MARK: Envelope

    @Test func envelopeFetchesPagesFromTheFake() async throws {
        try await withFake { fake, client in
            let service = EnvelopeProductService(client: client, baseURL: fake.baseURL, pageSize: 20)
            let first = try await service.fetchPage(1)
            #expect(first.items.count == 20)
            #expect(first.items.first?.id == "p-1001")
            #expect(first.hasMore)
            let last = try await service.fetchPage(3)
            #expect(last.items.count == 17)
            #expect(last.hasMore == false)
            #expect(fake.requestCount("/products") == 2)
        }
    }

    // MARK: DummyJSON

    @Test func dummyJSONPagesThroughAllProducts() async throws {
        try await withFake { fake, client in
            let service = DummyJSONProductService(client: client, baseURL: fake.baseURL + "/dummyjson", pageSize: 20)
            var items: [Product] = []
            var page = 0
            var hasMore = true
            while hasMore {
                page += 1
                let result = try await service.fetchPage(page)
                #expect(result.page == page)
                items += result.items
                hasMore = result.hasMore
                try #require(page <= 10)
            }
            #expect(page == 10)
            #expect(items.count == 194)
            #expect(items.map(\.id) == (1...194).map(String.init))
            #expect(
                items.first
                    == Product(
                        id: "1", title: "Essence Mascara Lash Princess", subtitle: "Essence", price: "$9.99",
                        badge: "In stock", detail: "★ 4.94 · 7% off",
                        imageUrl:
                            "https://cdn.dummyjson.com/products/images/beauty/essence-mascara-lash-princess/thumbnail.png"
                    ))
            #expect(items.contains { $0.badge == "Out of stock" })
            #expect(items.allSatisfy { $0.price.hasPrefix("$") && $0.detail.hasPrefix("★ ") && $0.imageUrl != nil })
            #expect(fake.requestCount("/dummyjson/products") == 10)
        }
    }

    @Test func dummyJSONLimitZeroAndBrandlessProducts() async throws {
        try await withFake { fake, client in
            let all = HTTPClientRequest(url: fake.baseURL + "/dummyjson/products?limit=0")
            let response = try await client.execute(all)
            let json = try JSONParser.parse(response.body)
            let products = try #require(json["products"]?.arrayValue)
            #expect(products.count == 194)
            #expect(json["total"] == 194)
            let brandless = try #require(products.first { $0["brand"] == nil })
            let single: JSONValue = ["products": [brandless], "total": 194, "skip": 0]
            let page = try DummyJSONProductService.decode(single, requestedPage: 1)
            #expect(page.items.first?.subtitle == brandless["category"]?.stringValue)
            let defaults = try await client.execute(HTTPClientRequest(url: fake.baseURL + "/dummyjson/products"))
            let defaultPage = try JSONParser.parse(defaults.body)
            #expect(defaultPage["products"]?.arrayValue?.count == 30)
            #expect(defaultPage["skip"] == 0)
        }
    }

    @Test func dummyJSONFaults() async throws {
        try await withFake { fake, client in
            let service = DummyJSONProductService(client: client, baseURL: fake.baseURL + "/dummyjson")
            fake.behavior = FakeUpstreamBehavior(fault: .business, faultCount: 1)
            let business = await #expect(throws: UpstreamError.self) { try await service.fetchPage(1) }
            #expect(business?.kind == .decoding)
            fake.behavior = FakeUpstreamBehavior(fault: .http500, faultCount: 1)
            let serverError = await #expect(throws: UpstreamError.self) { try await service.fetchPage(1) }
            #expect(serverError?.kind == .upstream)
            #expect(serverError?.status == 500)
            let recovered = try await service.fetchPage(1)
            #expect(recovered.items.count == 20)
        }
    }
}
