import EventLoop
import HTTPServer
import JSON
import Logging

/// Deterministic upstream APIs for offline runs and tests, served by vmhost's own HTTP server on another
/// loopback port: the `envelope` and `dummyjson` product APIs and the Flickr REST API, with configurable
/// latency and fault injection.
///
/// Endpoints:
/// - `GET /products?page=N&pageSize=M`: the `envelope` product API (57 products).
/// - `GET /dummyjson/products?limit=M&skip=K`: the `dummyjson` product API (194 products; `limit=0` is all).
/// - `GET /services/rest/?method=...`: Flickr's `flickr.photos.search` (`text`, `page`, `per_page`),
///   `flickr.photos.getFavorites`, `flickr.photos.comments.getList` and `flickr.photos.getInfo` (`photo_id`; a
///   photo the search never hands out answers `stat: fail` code 1 "Photo not found"); any other method answers
///   `stat: fail` with code 112. Always JSON, whatever `format` and `nojsoncallback` say, written as Flickr
///   writes it (`\/` and `\uXXXX` escapes); `api_key` is ignored.
/// - `GET /images/{server}/{id}_{secret}_{size}.jpg`: a generated SVG picture of a photo the search handed out
///   (a colour of its own per photo), for ``imageBaseURL``; `404` for any other. Latency and faults do not
///   apply, so an offline run always shows its pictures.
/// - `GET /_control` (behaviour and request counts); `PUT /_control` with
///   `{"latencyMs", "fault", "faultCount", "slowDelayMs", "emptySearches"}` to change the behaviour
///   (`"emptySearches": true`: every search finds nothing, whatever its text).
///
/// Every endpoint but `/_control` and the images takes the latency and the faults. The `business` fault answers
/// HTTP 200 with `success: false` (envelope) or `stat: fail` code 100 (Flickr; its message echoes the request
/// target when it carries an `api_key`); DummyJSON has no in-body failure,
/// so there it answers a truncated body like `malformed`.
@LoopActor
public final class FakeUpstream: LoopService {
    /// The current behaviour.
    public var behavior: FakeUpstreamBehavior
    /// Requests served per path (`/products`, `/dummyjson/products`, `/images`) or Flickr method
    /// (`flickr.photos.search`, `flickr.photos.getFavorites`, `flickr.photos.comments.getList`,
    /// `flickr.photos.getInfo`, any other as `flickr.unknown`), for tests and `GET /_control`.
    public private(set) var requestCounts: [String: Int] = [:]
    /// The `text` of the last `flickr.photos.search` served, as decoded (for tests of the client's encoding).
    public private(set) var lastFlickrSearchText: String?

    private var server: HTTPServer?
    private let logger: Logger
    /// The clock its latency waits on.
    private let clock: LoopClock

    /// Creates a stopped fake upstream.
    /// - Parameter clock: the clock its latency waits on (the application's).
    public init(behavior: FakeUpstreamBehavior = FakeUpstreamBehavior(), logger: Logger, clock: LoopClock = LoopClock())
    {
        self.behavior = behavior
        self.logger = logger
        self.clock = clock
    }

    /// The base URL once started (`http://127.0.0.1:PORT`).
    public private(set) var baseURL = ""

    /// Where the fake serves the photos' images once started: the base of Flickr's static image paths
    /// (`{imageBaseURL}/{server}/{id}_{secret}_{size}.jpg`), in place of `https://live.staticflickr.com`.
    public var imageBaseURL: String { baseURL + "/images" }

    /// Starts serving on `host:port` (port 0 picks a free one).
    /// - Returns: the base URL.
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int = 0) throws(HTTPServerError) -> String {
        var router = Router()
        router.on(.get, "/products") { [unowned self] request in self.products(request) }
        router.on(.get, "/dummyjson/products") { [unowned self] request in self.dummyJSONProducts(request) }
        router.on(.get, "/services/rest") { [unowned self] request in self.flickr(request) }
        router.on(.get, "/images/:server/:file") { [unowned self] request in
            self.requestCounts["/images", default: 0] += 1
            let parameters = request.parameters
            return .response(FakeImage.response(server: parameters["server"], file: parameters["file"]))
        }
        router.on(.get, "/_control") { [unowned self] _ in .response(.json(self.controlState)) }
        router.on(.put, "/_control") { [unowned self] request in try self.updateControl(request) }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: host, port: port, idleTimeout: .seconds(120), errorResponder: Self.errorResponder
            ),
            router: router, logger: logger
        )
        let bound = try server.start()
        self.server = server
        baseURL = "http://\(host):\(bound)"
        return baseURL
    }

    /// The fake's own errors (`/_control`, unknown paths) as `{"error": {"code", "message"}}`: not any real
    /// upstream's format, only readable alike in tests.
    private static let errorResponder = HTTPErrorResponder { error in
        .json(
            ["error": ["code": .string(error.code.rawValue), "message": .string(error.message)]], status: error.status)
    }

    /// Stops serving.
    public func shutdown() async {
        await server?.shutdown(flushTimeout: .milliseconds(200))
        server = nil
    }

    /// Total requests served on `path` (or for a Flickr method, see ``requestCounts``).
    public func requestCount(_ path: String) -> Int { requestCounts[path, default: 0] }

    // MARK: Products

    private func products(_ request: HTTPRequest) -> HTTPHandlerResult {
        requestCounts["/products", default: 0] += 1
        let page = request.query["page"].flatMap { Int($0) } ?? 1
        let size = request.query["pageSize"].flatMap { Int($0) } ?? 20
        guard page >= 1, (1...100).contains(size) else {
            return .response(.json(["success": false, "message": "invalid page or pageSize", "data": .null]))
        }
        let answer = HTTPResponse.json(ProductFixtures.page(index: page, size: size))
        let business = HTTPResponse.json(
            ["success": false, "message": "Product service is under maintenance", "data": .null]
        )
        return respond(normal: answer, business: business)
    }

    // MARK: DummyJSON

    private func dummyJSONProducts(_ request: HTTPRequest) -> HTTPHandlerResult {
        requestCounts["/dummyjson/products", default: 0] += 1
        let limit = request.query["limit"].flatMap { Int($0) } ?? DummyJSONFixtures.defaultLimit
        let skip = request.query["skip"].flatMap { Int($0) } ?? 0
        let truncated = Self.truncatedJSON(#"{"products": [{"id": 1, "title": "Essence Mas"#)
        return respond(
            normal: .json(DummyJSONFixtures.page(limit: limit, skip: skip)), business: truncated, malformed: truncated
        )
    }

    // MARK: Flickr

    private static let flickrMethods: Set = [
        "flickr.photos.search", "flickr.photos.getFavorites", "flickr.photos.comments.getList",
        "flickr.photos.getInfo",
    ]

    private func flickr(_ request: HTTPRequest) -> HTTPHandlerResult {
        let query = request.query
        let method = query["method"] ?? ""
        requestCounts[Self.flickrMethods.contains(method) ? method : "flickr.unknown", default: 0] += 1
        let answer: JSONValue
        switch method {
        case "flickr.photos.search":
            let text = query["text"] ?? ""
            lastFlickrSearchText = text
            answer = FlickrFixtures.search(
                text: text, page: query["page"].flatMap { Int($0) } ?? 1,
                perPage: query["per_page"].flatMap { Int($0) } ?? FlickrFixtures.defaultPerPage,
                empty: behavior.emptySearches
            )
        case "flickr.photos.getFavorites", "flickr.photos.comments.getList", "flickr.photos.getInfo":
            let photoID = query["photo_id"] ?? ""
            if let photo = FakeFlickrPhoto(id: photoID) {
                answer =
                    switch method {
                    case "flickr.photos.getFavorites": FlickrFixtures.favorites(photoID: photoID)
                    case "flickr.photos.comments.getList": FlickrFixtures.comments(photoID: photoID)
                    default: photo.info
                    }
            } else {
                answer = Self.flickrFailure(code: 1, message: "Photo not found")
            }
        default:
            answer = Self.flickrFailure(code: 112, message: "Method \"\(method)\" not found")
        }
        return respond(
            normal: FlickrJSONStyle.response(answer),
            business: FlickrJSONStyle.response(
                Self.flickrFailure(code: 100, message: Self.invalidKeyMessage(request))
            ),
            malformed: Self.truncatedJSON(#"{"photos": {"page": 1, "pages": "#)
        )
    }

    /// The `business` fault's message: Flickr's own, echoing the request's query when it carries an `api_key` (as
    /// upstreams' failure messages sometimes echo the request), so tests can check that the key is redacted.
    private static func invalidKeyMessage(_ request: HTTPRequest) -> String {
        let message = "Invalid API Key (Key has invalid format)"
        guard let key = request.query["api_key"] else { return message }
        return message + ": " + request.path + "?method=" + (request.query["method"] ?? "") + "&api_key=" + key
    }

    private static func flickrFailure(code: Int, message: String) -> JSONValue {
        ["stat": "fail", "code": .int(code), "message": .string(message)]
    }

    // MARK: Faults

    /// A 200 answer whose JSON body is cut short.
    private static func truncatedJSON(_ text: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "application/json")], body: Array(text.utf8))
    }

    /// Applies latency and the current fault to a normal answer; `business` is the answer of the `business`
    /// fault and `malformed` (by default a truncated envelope) the one of the `malformed` fault.
    func respond(normal: HTTPResponse, business: HTTPResponse, malformed: HTTPResponse? = nil) -> HTTPHandlerResult {
        let fault = takeFault()
        let latency = behavior.latency
        let slowDelay = behavior.slowDelay
        var response = normal
        var delay = latency
        switch fault {
        case nil: break
        case .http500?:
            response = .json(["error": "internal server error"], status: 500)
        case .http429?:
            response = HTTPResponse(
                status: 429, headers: [HTTPHeader("Content-Type", "text/plain"), HTTPHeader("Retry-After", "60")],
                body: Array("Too Many Requests".utf8)
            )
        case .malformed?:
            response = malformed ?? Self.truncatedJSON(#"{"success": true, "data": [{"ProductId": "p-1"#)
        case .business?:
            response = business
        case .slow?:
            delay = latency + slowDelay
        case .hang?:
            delay = .seconds(3600)
        }
        if delay == .zero { return .response(response) }
        return .deferred { [response, clock] in
            // NB: cancelled at shutdown: the answer then goes out at once instead of after an hour.
            try? await clock.sleep(for: delay)
            return response
        }
    }

    private func takeFault() -> FakeFault? {
        guard let fault = behavior.fault else { return nil }
        if let remaining = behavior.faultCount {
            if remaining <= 1 {
                behavior.fault = nil
                behavior.faultCount = nil
            } else {
                behavior.faultCount = remaining - 1
            }
        }
        return fault
    }

    // MARK: Control

    private var controlState: JSONValue {
        var counts = JSONObject()
        for (path, count) in requestCounts.sorted(by: { $0.key < $1.key }) { counts[path] = .int(count) }
        return ["behavior": behavior.json, "requests": .object(counts)]
    }

    private func updateControl(_ request: HTTPRequest) throws(HTTPError) -> HTTPHandlerResult {
        let body = try request.jsonObjectBody()
        var next = FakeUpstreamBehavior()
        if let latency = body["latencyMs"], !latency.isNull {
            guard let milliseconds = latency.intValue, milliseconds >= 0 else {
                throw .invalidField("latencyMs", "must be a non-negative integer")
            }
            next.latency = .milliseconds(milliseconds)
        }
        if let slow = body["slowDelayMs"], !slow.isNull {
            guard let milliseconds = slow.intValue, milliseconds >= 0 else {
                throw .invalidField("slowDelayMs", "must be a non-negative integer")
            }
            next.slowDelay = .milliseconds(milliseconds)
        }
        if let fault = body["fault"], !fault.isNull {
            guard let name = fault.stringValue, let parsed = FakeFault(rawValue: name) else {
                let names = FakeFault.allCases.map(\.rawValue).joined(separator: ", ")
                throw .invalidField("fault", "must be null or one of \(names)")
            }
            next.fault = parsed
        }
        if let count = body["faultCount"], !count.isNull {
            guard let value = count.intValue, value >= 1 else {
                throw .invalidField("faultCount", "must be a positive integer or null")
            }
            next.faultCount = value
        }
        if let empty = body["emptySearches"], !empty.isNull {
            guard let value = empty.boolValue else { throw .invalidField("emptySearches", "must be a boolean") }
            next.emptySearches = value
        }
        behavior = next
        return .response(.json(controlState))
    }
}
