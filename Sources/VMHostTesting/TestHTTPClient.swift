import JSON

/// An HTTP response as the test client read it.
public struct TestHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// A header value, case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (nil if it is not JSON).
    public var json: JSONValue? { try? JSONParser.parse(body) }

    /// The `error.code` of an API error body.
    public var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// A minimal HTTP/1.1 client over ``TestSocket``: one request per call, keep-alive reuse when asked.
///
/// The `async` methods do their blocking I/O on a thread of their own (see ``offPool(_:)``).
public final class TestHTTPClient: @unchecked Sendable {
    public let port: Int
    private var connection: TestSocket?

    /// A client for `127.0.0.1:port`.
    public init(port: Int) {
        self.port = port
    }

    /// Closes the kept-alive connection, if any.
    public func close() {
        connection?.close()
        connection = nil
    }

    /// Sends a request and reads the whole response (Content-Length, chunked, or until close).
    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        json: JSONValue? = nil
    ) async throws -> TestHTTPResponse {
        let headers = headers.map { HeaderPair(name: $0.0, value: $0.1) }
        return try await offPool { [self] in
            try requestBlocking(method, path, headers: headers.map { ($0.name, $0.value) }, body: body, json: json)
        }
    }

    struct HeaderPair: Sendable {
        var name: String
        var value: String
    }

    /// The blocking form of ``request(_:_:headers:body:json:)``.
    ///
    /// A kept-alive connection the server has closed meanwhile (its idle deadline passed, as it does when a
    /// test moves the server's clock) fails the request: it is sent again once, on a new connection, as
    /// HTTP clients do with a reused connection that dies before answering.
    public func requestBlocking(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        json: JSONValue? = nil
    ) throws -> TestHTTPResponse {
        guard connection != nil else { return try requestOnce(method, path, headers: headers, body: body, json: json) }
        do {
            return try requestOnce(method, path, headers: headers, body: body, json: json)
        } catch {
            return try requestOnce(method, path, headers: headers, body: body, json: json)
        }
    }

    private func requestOnce(
        _ method: String, _ path: String, headers: [(String, String)], body: [UInt8]?, json: JSONValue?
    ) throws -> TestHTTPResponse {
        let socket = try connection ?? TestSocket(port: port)
        connection = socket
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        var payload = body
        var allHeaders = headers
        if let json {
            payload = json.serializedBytes
            if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
                allHeaders.append(("Content-Type", "application/json"))
            }
        }
        for (name, value) in allHeaders { head += "\(name): \(value)\r\n" }
        if let payload { head += "Content-Length: \(payload.count)\r\n" }
        head += "\r\n"
        do {
            try socket.write(Array(head.utf8) + (payload ?? []))
            let response = try Self.readResponse(from: socket, method: method)
            if response.header("Connection")?.lowercased() == "close" { connection = nil }
            return response
        } catch {
            connection = nil
            throw error
        }
    }

    /// Convenience: POST with a JSON body.
    public func post(
        _ path: String, json: JSONValue? = nil, headers: [(String, String)] = []
    ) async throws
        -> TestHTTPResponse
    {
        try await request("POST", path, headers: headers, json: json)
    }

    /// Convenience: GET.
    public func get(_ path: String, headers: [(String, String)] = []) async throws -> TestHTTPResponse {
        try await request("GET", path, headers: headers)
    }

    /// Reads a response head and body from a socket.
    static func readResponse(from socket: TestSocket, method: String) throws -> TestHTTPResponse {
        let (status, headers) = try readHead(from: socket)
        let response = TestHTTPResponse(status: status, headers: headers, body: [])
        if method == "HEAD" || status == 204 || status == 304 { return response }
        var result = response
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while let chunk = try readChunk(from: socket) { body += chunk }
            result.body = body
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            result.body = try socket.readExactly(length)
        } else {
            result.body = try socket.readToEnd()
        }
        return result
    }

    public static func readHead(from socket: TestSocket) throws -> (Int, [(name: String, value: String)]) {
        let statusLine = try socket.readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw TestClientError("bad status line: \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        while true {
            let line = try socket.readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw TestClientError("bad header line: \(line)") }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers.append((String(line[..<colon]), String(value)))
        }
        return (status, headers)
    }

    /// One chunk of a chunked body, as it came; nil for the last (zero-length) chunk.
    public static func readChunk(from socket: TestSocket) throws -> [UInt8]? {
        let sizeLine = try socket.readLine()
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
            throw TestClientError("bad chunk size line: \(sizeLine)")
        }
        if size == 0 {
            _ = try socket.readLine()
            return nil
        }
        let data = try socket.readExactly(size)
        _ = try socket.readLine()
        return data
    }
}
