import EventLoop
import HTTPServer
import JSON
import Logging

/// Deterministic upstream APIs for offline runs and tests, served by vmhost's own HTTP server on another
/// loopback port: the `envelope` product API, with configurable latency and fault injection.
///
/// Endpoints: `GET /products?page=N&pageSize=M`; `GET /_control` (behaviour and request counts);
/// `PUT /_control` with `{"latencyMs", "fault", "faultCount", "slowDelayMs"}` to change the behaviour.
@LoopActor
public final class FakeUpstream {
    /// The current behaviour.
    public var behavior: FakeUpstreamBehavior
    /// Requests served per path (`/products`), for tests and `GET /_control`.
    public private(set) var requestCounts: [String: Int] = [:]

    private var server: HTTPServer?
    private let logger: Logger

    /// Creates a stopped fake upstream.
    public init(behavior: FakeUpstreamBehavior = FakeUpstreamBehavior(), logger: Logger) {
        self.behavior = behavior
        self.logger = logger
    }

    /// The base URL once started (`http://127.0.0.1:PORT`).
    public private(set) var baseURL = ""

    /// Starts serving on `host:port` (port 0 picks a free one).
    /// - Returns: the base URL.
    @discardableResult
    public func start(host: String = "127.0.0.1", port: Int = 0) throws(HTTPServerError) -> String {
        var router = Router()
        router.on(.get, "/products") { [unowned self] request in self.products(request) }
        router.on(.get, "/_control") { [unowned self] _ in .response(.json(self.controlState)) }
        router.on(.put, "/_control") { [unowned self] request in try self.updateControl(request) }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: host, port: port, idleTimeout: .seconds(120)),
            router: router, logger: logger
        )
        let bound = try server.start()
        self.server = server
        baseURL = "http://\(host):\(bound)"
        return baseURL
    }

    /// Stops serving.
    public func shutdown() async {
        await server?.shutdown(flushTimeout: .milliseconds(200))
        server = nil
    }

    /// Total requests served on `path`.
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

    // MARK: Faults

    /// Applies latency and the current fault to a normal answer.
    func respond(normal: HTTPResponse, business: HTTPResponse) -> HTTPHandlerResult {
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
            response = HTTPResponse(
                status: 200, headers: [HTTPHeader("Content-Type", "application/json")],
                body: Array(#"{"success": true, "data": [{"ProductId": "p-1"#.utf8)
            )
        case .business?:
            response = business
        case .slow?:
            delay = latency + slowDelay
        case .hang?:
            delay = .seconds(3600)
        }
        if delay == .zero { return .response(response) }
        return .deferred { [response] in
            // NB: cancelled at shutdown: the answer then goes out at once instead of after an hour.
            try? await Task.sleep(for: delay)
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
        behavior = next
        return .response(.json(controlState))
    }
}
