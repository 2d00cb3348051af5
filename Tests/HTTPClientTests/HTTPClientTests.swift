import EventLoop
import HTTPClient
import HTTPServer
import Logging
import Testing
import VMHostTesting

/// A real evhttp server on a loopback port with a few routes, for the client to talk to.
@LoopActor
final class LocalServer {
    let server: HTTPServer
    let port: Int
    /// `/slow` answers once this opens (never by itself: no test waits real seconds for it).
    let slowAnswer: Gate

    init() throws {
        var router = Router()
        router.on(.get, "/hello") { request in
            .response(.json(["hello": "world", "query": .string(request.query["q"] ?? "")]))
        }
        router.on(.get, "/fail") { _ in .response(.json(["error": "boom"], status: 500)) }
        router.on(.get, "/big") { _ in
            .response(HTTPResponse(status: 200, body: [UInt8](repeating: 65, count: 100_000)))
        }
        let slowAnswer = Gate()
        self.slowAnswer = slowAnswer
        router.on(.get, "/slow") { _ in
            .deferred {
                await slowAnswer.wait()
                return .json(["late": true])
            }
        }
        router.on(.post, "/echo") { request in .response(HTTPResponse(status: 200, body: request.body)) }
        server = HTTPServer(
            configuration: HTTPServerConfiguration(port: 0), router: router, logger: Logger(label: "test"))
        port = try server.start()
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
}

/// Holds its waiters until the test opens it.
@LoopActor
final class Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    nonisolated init() {}

    /// Returns once the gate is open.
    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Opens the gate: every waiter and every later one goes on.
    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

@LoopActor
@Suite("HTTPClient on curl multi")
struct HTTPClientTests {
    @Test func successWithBodyHeadersAndReuse() async throws {
        let local = try LocalServer()
        let client = HTTPClient()
        for round in 0..<3 {
            let response = try await client.execute(HTTPClientRequest(url: local.url("/hello?q=\(round)")))
            #expect(response.status == 200)
            #expect(response.header("content-type") == "application/json")
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"hello":"world","query":"\#(round)"}"#)
        }
        #expect(client.activeTransfers == 0)
        await local.server.shutdown()
    }

    @Test func postSendsTheBody() async throws {
        let local = try LocalServer()
        let client = HTTPClient()
        let body = Array(#"{"a":1}"#.utf8)
        let response = try await client.execute(
            HTTPClientRequest(url: local.url("/echo"), headers: [("Content-Type", "application/json")], body: body)
        )
        #expect(response.body == body)
        await local.server.shutdown()
    }

    @Test func httpErrorStatusIsAResponseNotAnError() async throws {
        let local = try LocalServer()
        let response = try await HTTPClient().execute(HTTPClientRequest(url: local.url("/fail")))
        #expect(response.status == 500)
        await local.server.shutdown()
    }

    @Test func connectionRefused() async throws {
        let refusing = try RefusingPort()
        await #expect {
            try await HTTPClient().execute(HTTPClientRequest(url: "http://127.0.0.1:\(refusing.port)/"))
        } throws: { error in
            if case .connectFailed = error as? HTTPClientError { return true }
            return false
        }
    }

    @Test func timeoutWhenTheServerNeverAnswers() async throws {
        let local = try LocalServer()
        let client = HTTPClient()
        // NB: /slow answers only after the client gave up, so the error can only be the client's timeout.
        await #expect {
            try await client.execute(HTTPClientRequest(url: local.url("/slow"), timeout: .milliseconds(300)))
        } throws: { error in
            if case .timedOut = error as? HTTPClientError { return true }
            return false
        }
        local.slowAnswer.open()
        await local.server.shutdown()
    }

    @Test func responseLargerThanTheLimitFails() async throws {
        let local = try LocalServer()
        let client = HTTPClient(configuration: HTTPClientConfiguration(maxResponseBytes: 10_000))
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 10_000)) {
            try await client.execute(HTTPClientRequest(url: local.url("/big")))
        }
        await local.server.shutdown()
    }

    @Test func invalidURL() async {
        await #expect(throws: HTTPClientError.invalidURL("ftp://example.com/")) {
            try await HTTPClient().execute(HTTPClientRequest(url: "ftp://example.com/"))
        }
    }

    @Test func cancellationAbortsTheTransferAndClosesTheConnection() async throws {
        let listener = try TestListener()
        let client = HTTPClient()
        // NB: a 60 s request timeout, so a close seen within 20 s can only be the abort (5 s was outlasted once on a
        // machine loaded by parallel builds).
        let task = Task { @LoopActor in
            try await client.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(listener.port)/never", timeout: .seconds(60)))
        }
        // The upstream side blocks on a thread of its own: accept, read the request, then wait for the close.
        let sawClose = Task {
            try await offPool { () throws -> (String, Bool) in
                let connection = try listener.accept()
                let head = try connection.readRequestHead()
                return (head, connection.waitForPeerClose(timeoutSeconds: 20))
            }
        }
        for _ in 0..<1000 where client.activeTransfers == 0 { try await LoopClock().sleep(for: .milliseconds(2)) }
        try #require(client.activeTransfers > 0)
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        await #expect(throws: HTTPClientError.cancelled) { try await task.value }
        let (head, closed) = try await sawClose.value
        #expect(head.hasPrefix("GET /never HTTP/1.1"))
        #expect(closed, "the upstream saw its connection close")
        #expect(client.activeTransfers == 0)
    }

    @Test func alreadyCancelledTaskDoesNotStartATransfer() async {
        let client = HTTPClient()
        let task = Task { @LoopActor in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:1/"))
        }
        await #expect(throws: HTTPClientError.cancelled) { try await task.value }
        #expect(client.activeTransfers == 0)
    }
}
