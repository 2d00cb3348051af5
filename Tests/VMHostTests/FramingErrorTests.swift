import JSON
import Testing
import VMHostTesting

// Errors found before any handler runs: bodies over the limit, broken framing, broken heads. All are the
// API's JSON errors: where evhttp answers itself (a head it cannot parse, a body over its limit), vmhost's
// `evhttp_send_error` writes them.

@Suite("Errors before the handler")
struct FramingErrorTests {
    @Test func aBodyOverTheLimitSentWholeIsTheAPIs413() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            // NB: 64 KiB and one byte, so the socket buffers take it all before the server answers and closes.
            let body = [UInt8](repeating: UInt8(ascii: " "), count: 64 * 1024 + 1)
            let connection = try await RawConnection.open(port: app.port, timeoutSeconds: 60)
            defer { connection.close() }
            try await connection.send(
                Self.head("POST", id: id, ["Content-Type: application/json", "Content-Length: \(body.count)"]) + body
            )
            let response = try await connection.response(method: "POST")
            Self.expectAPIError(response, 413, "body_too_large", "65536")
            // Refused from the head, the body unread: the connection closes.
            #expect(response.header("Connection")?.lowercased() == "close")
        }
    }

    @Test func aChunkedBodyOverTheLimitIsTheAPIs413() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 32 * 1024)
            var body: [UInt8] = []
            for _ in 0..<3 { body += bytes(String(chunk.count, radix: 16) + "\r\n") + chunk + bytes("\r\n") }
            body += bytes("0\r\n\r\n")
            let connection = try await RawConnection.open(port: app.port, timeoutSeconds: 60)
            defer { connection.close() }
            try await connection.send(
                Self.head("POST", id: id, ["Content-Type: application/json", "Transfer-Encoding: chunked"]) + body
            )
            Self.expectAPIError(try await connection.response(method: "POST"), 413, "body_too_large", "65536")
        }
    }

    @Test func conflictingContentLengthsAreTheAPIs400AndClose() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            let lines = ["Content-Type: application/json", "Content-Length: 15", "Content-Length: 3"]
            try await connection.send(Self.head("POST", id: id, lines) + bytes(#"{"text":"abcd"}"#))
            let response = try await connection.response(method: "POST")
            Self.expectAPIError(response, 400, "invalid_request", "Content-Length")
            #expect(response.header("Connection")?.lowercased() == "close")
            #expect(await connection.closedByPeer(within: .seconds(5)))
        }
    }

    @Test func anUnknownMethodIsTheAPIs501AndCloses() async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            // NB: evhttp does not read the body of a method it does not know: the server must close.
            let smuggled = bytes("GET /healthz HTTP/1.1\r\n\r\n")
            try await connection.send(Self.head("BREW", id: id, ["Content-Length: \(smuggled.count)"]) + smuggled)
            Self.expectAPIError(try await connection.response(method: "BREW"), 501, "method_not_implemented", "method")
            #expect(await connection.responseOrClose(method: "GET") == nil, "the body is never read as a request")
        }
    }

    /// What evhttp 2.1 refuses itself, before any handler: answered in the API's format all the same
    /// (vmhost's `evhttp_send_error`), and the connection closes.
    @Test(arguments: [
        ("a body announced beyond the limit (5 MiB)", ["Content-Length: 5242880"], "", 413, "body_too_large"),
        (
            "a chunk size that is not hex", ["Transfer-Encoding: chunked"], "zz\r\nab\r\n0\r\n\r\n", 413,
            "body_too_large"
        ),
        (
            "an Expect other than 100-continue", ["Expect: coffee", "Content-Length: 3"], "abc", 417,
            "expectation_failed"
        ),
        ("a non-numeric Content-Length", ["Content-Length: 1e3"], "", 400, "invalid_request"),
        ("a header line without a colon", ["NoColonHere"], "", 400, "invalid_request"),
    ])
    func evhttpsOwnRefusalsAreTheAPIsErrors(
        what: String, lines: [String], body: String, status: Int, code: String
    ) async throws {
        try await withApp { app in
            let id = try await app.createSession()
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            try await connection.send(Self.head("POST", id: id, lines) + bytes(body))
            // NB: evhttp may reset a connection it refuses before its answer is read.
            if let response = await connection.responseOrClose(method: "POST") {
                #expect(response.status == status, "\(what): \(response.text.prefix(200))")
                #expect(response.header("Content-Type") == "application/json", "\(what)")
                #expect(response.errorCode == code, "\(what)")
            }
            #expect(await connection.closedByPeer(within: .seconds(5)), "\(what)")
            #expect(try await app.client.get("/healthz").status == 200)
        }
    }

    @Test func aRequestLineEvhttpCannotParseIsTheAPIs400() async throws {
        try await withApp { app in
            let connection = try await RawConnection.open(port: app.port)
            defer { connection.close() }
            try await connection.send(bytes("GET\r\n\r\n"))
            let response = try await connection.response()
            Self.expectAPIError(response, 400, "invalid_request", "head")
        }
    }

    /// A request head for the session's `search/text` with `lines` as header lines.
    static func head(_ method: String, id: String, _ lines: [String]) -> [UInt8] {
        let fields = lines.map { $0 + "\r\n" }.joined()
        return bytes("\(method) /v1/sessions/\(id)/search/text HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + "\r\n")
    }

    /// The API's error: the status, JSON with exactly `error.code` and a `message` that mentions `detail`.
    static func expectAPIError(_ response: TestHTTPResponse, _ status: Int, _ code: String, _ detail: String) {
        #expect(response.status == status, "\(response.text.prefix(200))")
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.header("X-Request-ID")?.isEmpty == false)
        guard let error = response.json?["error"]?.objectValue else {
            Issue.record("not the API's error format: \(response.text.prefix(200))")
            return
        }
        #expect(error.keys.sorted() == ["code", "message"])
        #expect(error["code"]?.stringValue == code)
        #expect(error["message"]?.stringValue?.contains(detail) == true, "\(error)")
    }
}
