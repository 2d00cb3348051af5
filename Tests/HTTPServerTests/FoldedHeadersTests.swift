import CLibevent
import CLibeventShims
import EventLoop
import Logging
import Testing
import VMHostTesting

@testable import HTTPServer

/// The header lines evhttp never reads, added to its list as one entry (`FoldedHeaders`): what the list holds,
/// and what the wire carries.
@Suite("Folded headers")
struct FoldedHeadersTests {
    /// A reply header list of evhttp's own (a request's), given to `body` and freed after it.
    static func withList(_ body: (UnsafeMutablePointer<evkeyvalq>?) throws -> Void) rethrows {
        let request = evhttp_request_new(nil, nil)
        defer { evhttp_request_free(request) }
        try body(evhttp_request_get_output_headers(request))
    }

    /// The entries of a fresh list after `headers` were added in order and the folded lines last.
    static func entries(folding headers: [(name: String, value: String)]) -> [String] {
        var entries: [String] = []
        withList { list in
            let folded = FoldedHeaders()
            for (name, value) in headers { folded.add(name, value, else: list) }
            folded.add(to: list)
            entries = Self.entries(list)
        }
        return entries
    }

    /// The entries of `list`, in order.
    static func entries(_ list: UnsafeMutablePointer<evkeyvalq>?) -> [String] {
        var entries: [String] = []
        var entry = list?.pointee.tqh_first
        while let current = entry {
            entries.append(String(cString: current.pointee.key) + ": " + String(cString: current.pointee.value))
            entry = current.pointee.next.tqe_next
        }
        return entries
    }

    @Test func headersEvhttpDoesNotReadBecomeOneEntryNamedAfterTheFirst() {
        Self.withList { list in
            let folded = FoldedHeaders()
            folded.add("X-Request-ID", "r1", else: list)
            folded.add("Content-Type", "application/json", else: list)
            folded.add("X-VMHost-Node", "node-1", else: list)
            #expect(Self.entries(list) == [], "nothing is added before the lines are complete")
            #expect(folded.hasContentType)
            folded.add(to: list)
            #expect(
                Self.entries(list) == ["X-Request-ID: r1\r\nContent-Type: application/json\r\nX-VMHost-Node: node-1"])
            #expect(!folded.hasContentType, "the lines started over")

            folded.add(to: list)
            #expect(Self.entries(list).count == 1, "adding again adds nothing: the lines started over")
            folded.add("Cache-Control", "no-cache", else: list)
            folded.add(to: list)
            #expect(Self.entries(list).last == "Cache-Control: no-cache")
        }
    }

    /// A reply's length is the first line (HTTP/1.1): the entry is named after it, which is how evhttp finds it
    /// (it reads no reply's length, only whether there is one).
    @Test func aReplysLengthNamesTheEntryWhereEvhttpLooksForIt() throws {
        try Self.withList { list in
            let folded = FoldedHeaders()
            let request = try #require(evhttp_request_new(nil, nil))
            defer { evhttp_request_free(request) }
            vmh_evhttp_request_set_version(request, 1, 1)
            folded.addContentLength(1_234_567, of: request)
            folded.add("Content-Type", "application/json", else: list)
            folded.add(to: list)
            #expect(Self.entries(list) == ["Content-Length: 1234567\r\nContent-Type: application/json"])
            #expect(evhttp_find_header(list, "Content-Length") != nil)

            folded.add("X-A", "1", else: list)
            folded.addContentLength(5, of: request)
            folded.add(to: list)
            #expect(Self.entries(list).last == "X-A: 1", "only as the first line")

            vmh_evhttp_request_set_version(request, 1, 0)
            folded.addContentLength(5, of: request)
            folded.add(to: list)
            #expect(Self.entries(list).count == 2, "HTTP/1.0's length is evhttp's to decide (by keep-alive)")
        }
    }

    @Test func headersEvhttpReadsStayEntriesOfTheirOwnInAnyCase() {
        #expect(
            Self.entries(
                folding: [
                    ("X-A", "1"), ("content-length", "5"), ("Connection", "close"),
                    ("DATE", "Tue, 24 Nov 2026 21:00:00 GMT"), ("Transfer-Encoding", "chunked"),
                    ("proxy-connection", "keep-alive"), ("Content-Type", "text/plain"), ("X-B", "2"),
                ]) == [
                    "content-length: 5", "Connection: close", "DATE: Tue, 24 Nov 2026 21:00:00 GMT",
                    "Transfer-Encoding: chunked", "proxy-connection: keep-alive",
                    "X-A: 1\r\nContent-Type: text/plain\r\nX-B: 2",
                ])
    }

    @Test func lineBreaksAreRefusedAsEvhttpRefusesThemAndNULsAndColonsKeepEntriesOfTheirOwn() {
        #expect(
            Self.entries(
                folding: [
                    ("X-Split", "a\r\nSet-Cookie: b"), ("X-Split\r\nSet-Cookie", "b"), ("X-Lone", "a\nb"),
                    ("X-Nul", "a\u{0}b"),  // as a C string, as before: "a"
                    ("X-Colon:Name", "v"), ("X-Good", "1"),
                ]) == ["X-Nul: a", "X-Colon:Name: v", "X-Good: 1"])
    }

    @Test func headersFoldedOnceGoIntoAnyReplyUnlessOneCannotFold() throws {
        #expect(FoldedHeaders.block([HTTPHeader("X-A", "1"), HTTPHeader("Content-Type", "text/plain")]) == nil)
        #expect(FoldedHeaders.block([HTTPHeader("Connection", "close")]) == nil)
        #expect(FoldedHeaders.block([HTTPHeader("X-Bad", "a\nb")]) == nil)
        let block = try #require(FoldedHeaders.block([HTTPHeader("X-VMHost-Node", "n1"), HTTPHeader("X-Two", "2")]))
        Self.withList { list in
            let folded = FoldedHeaders()
            folded.add(block)
            folded.add(to: list)
            folded.add("Content-Type", "text/plain", else: list)
            folded.add(block)
            folded.add(to: list)
            #expect(
                Self.entries(list) == [
                    "X-VMHost-Node: n1\r\nX-Two: 2", "Content-Type: text/plain\r\nX-VMHost-Node: n1\r\nX-Two: 2",
                ])
        }
    }

    /// Through the server: the lines reach the client as the headers they were, evhttp adds its default
    /// `Content-Type` (the server's, `application/json`) once to a reply without one, and reads a `Connection`
    /// a handler sets.
    @LoopActor
    @Test func theClientReadsEachHeaderAsAdded() async throws {
        var router = Router()
        let headers = [
            HTTPHeader("X-A", "1"), HTTPHeader("Content-Type", "text/plain"), HTTPHeader("x-b", "2"),
            HTTPHeader("X-Bad", "a\r\nb"),
        ]
        router.on(.get, "/typed-later") { _ in .response(HTTPResponse(status: 200, headers: headers, body: [104, 105]))
        }
        router.on(.get, "/untyped") { _ in .response(HTTPResponse(status: 200, body: [104, 105])) }
        router.on(.get, "/closing") { _ in
            .response(HTTPResponse(status: 200, headers: [HTTPHeader("Connection", "close")], body: [104, 105]))
        }
        var configuration = HTTPServerConfiguration(port: 0)
        configuration.commonHeaders = [HTTPHeader("X-Common", "c")]
        let server = HTTPServer(configuration: configuration, router: router, logger: Logger(label: "test"))
        let port = try server.start()
        let connection = try await ServerConnection.open(port: port)
        defer { connection.close() }

        let typed = try await connection.get("/typed-later")
        #expect(typed.text == "hi")
        #expect(
            typed.headers.map(\.name) == [
                "Content-Length", "X-A", "Content-Type", "x-b", "X-Request-ID", "X-Common", "Date",
            ])
        #expect(typed.header("Content-Type") == "text/plain" && typed.header("x-b") == "2")
        #expect(typed.header("X-Common") == "c" && typed.header("X-Request-ID")?.isEmpty == false)

        let untyped = try await connection.get("/untyped")
        #expect(untyped.headers.filter { $0.name == "Content-Type" }.map(\.value) == ["application/json"])
        #expect(untyped.header("X-Common") == "c")

        let closing = try await connection.get("/closing")
        #expect(closing.header("Connection") == "close")
        #expect(await connection.closedByPeer())
        await server.shutdown()
    }
}
