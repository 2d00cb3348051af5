import JSON

/// One Server-Sent Event.
public struct TestServerSentEvent: Equatable, Sendable {
    public var id: String?
    public var event: String
    public var data: String
    public var retry: Int?

    /// The data parsed as JSON.
    public var json: JSONValue? { try? JSONParser.parse(Array(data.utf8)) }
}

/// An SSE client over ``TestSocket``: opens the stream, checks the head, then yields parsed events
/// (comments are counted, not returned). Blocking reads run on a thread of their own (``offPool(_:)``).
public final class TestEventStream: @unchecked Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    /// The body of a non-200 answer.
    public private(set) var errorBody: [UInt8] = []
    /// Comment lines seen (`: keepalive`).
    public private(set) var comments: [String] = []
    private let socket: TestSocket
    private let chunked: Bool
    private var text: [UInt8] = []
    private var ended = false

    /// Opens `GET path` with `Accept: text/event-stream`.
    public convenience init(
        port: Int, path: String, headers: [(String, String)] = [], timeoutSeconds: Int = 10,
        receiveBufferBytes: Int? = nil
    ) async throws {
        let pairs = headers.map { TestHTTPClient.HeaderPair(name: $0.0, value: $0.1) }
        let opened = try await offPool {
            try UncheckedBox(
                TestEventStream(
                    blockingPort: port, path: path, headers: pairs.map { ($0.name, $0.value) },
                    timeoutSeconds: timeoutSeconds, receiveBufferBytes: receiveBufferBytes
                )
            )
        }
        self.init(moving: opened.value)
    }

    private init(moving other: TestEventStream) {
        status = other.status
        headers = other.headers
        errorBody = other.errorBody
        socket = other.socket
        chunked = other.chunked
    }

    private init(
        blockingPort port: Int, path: String, headers: [(String, String)], timeoutSeconds: Int,
        receiveBufferBytes: Int?
    ) throws {
        socket = try TestSocket(port: port, timeoutSeconds: timeoutSeconds, receiveBufferBytes: receiveBufferBytes)
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try socket.write(head + "\r\n")
        let (status, headers) = try TestHTTPClient.readHead(from: socket)
        self.status = status
        self.headers = headers
        chunked = headers.contains { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }
        if status != 200 {
            let response = TestHTTPResponse(status: status, headers: headers, body: [])
            if let length = response.header("Content-Length").flatMap({ Int($0) }) {
                errorBody = try socket.readExactly(length)
            }
        }
    }

    /// A header value.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Sets how long ``next()`` waits.
    public func setTimeout(seconds: Int, microseconds: Int = 0) {
        socket.setTimeout(seconds: seconds, microseconds: microseconds)
    }

    /// The next event; nil when the server ended the stream. Throws on timeout.
    public func next() async throws -> TestServerSentEvent? {
        try await offPool { [self] in try nextBlocking() }
    }

    /// The blocking form of ``next()``.
    public func nextBlocking() throws -> TestServerSentEvent? {
        while true {
            if let event = takeEvent() { return event }
            if ended { return nil }
            try readMore()
        }
    }

    /// Whether the stream has ended (server closed it), waiting briefly.
    public func hasEnded(waitMilliseconds: Int = 2000) async throws -> Bool {
        try await offPool { [self] in hasEndedBlocking(waitMilliseconds: waitMilliseconds) }
    }

    private func hasEndedBlocking(waitMilliseconds: Int) -> Bool {
        socket.setTimeout(seconds: waitMilliseconds / 1000, microseconds: (waitMilliseconds % 1000) * 1000)
        while !ended {
            do { try readMore() } catch { return false }
        }
        return true
    }

    /// Closes the connection abruptly (a client going away).
    public func close() { socket.close() }

    /// Ends the connection so that a read blocked on another thread returns; that reader then closes it.
    public func shutdown() { socket.shutdown() }

    private func readMore() throws {
        if chunked {
            if let chunk = try TestHTTPClient.readChunk(from: socket) { text += chunk } else { ended = true }
        } else {
            let bytes = try socket.readExactlyAvailable()
            if bytes.isEmpty { ended = true } else { text += bytes }
        }
    }

    private func takeEvent() -> TestServerSentEvent? {
        while let range = blockEnd() {
            let block = String(decoding: text[..<range.lowerBound], as: UTF8.self)
            text.removeFirst(range.upperBound)
            var event = TestServerSentEvent(id: nil, event: "message", data: "", retry: nil)
            var dataLines: [String] = []
            var hasField = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    comments.append(String(line.dropFirst().drop { $0 == " " }))
                    continue
                }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let field = String(parts[0])
                var value = parts.count > 1 ? String(parts[1]) : ""
                if value.hasPrefix(" ") { value.removeFirst() }
                switch field {
                case "id":
                    event.id = value
                    hasField = true
                case "event":
                    event.event = value
                    hasField = true
                case "data":
                    dataLines.append(value)
                    hasField = true
                case "retry": event.retry = Int(value)
                default: break
                }
            }
            event.data = dataLines.joined(separator: "\n")
            if hasField { return event }
        }
        return nil
    }

    private func blockEnd() -> Range<Int>? {
        guard text.count >= 2 else { return nil }
        for index in 0..<(text.count - 1)
        where text[index] == UInt8(ascii: "\n") && text[index + 1] == UInt8(ascii: "\n") {
            return index..<(index + 2)
        }
        return nil
    }
}

extension TestSocket {
    /// Whatever bytes arrive next (empty on EOF).
    func readExactlyAvailable() throws -> [UInt8] {
        guard try fill() else { return [] }
        return takeBuffered()
    }
}

/// Moves a non-Sendable value out of the thread that built it (the test owns it exclusively).
struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
