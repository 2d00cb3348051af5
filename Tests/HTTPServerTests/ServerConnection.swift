import EventLoop
import VMHostTesting

/// One client connection to the server under test; its blocking reads run off the pool (``offPool(_:)``).
final class ServerConnection: @unchecked Sendable {
    private let socket: TestSocket

    private init(socket: TestSocket) { self.socket = socket }

    /// A connection to `port`; `receiveBufferBytes` makes its kernel buffer small, for a client that stalls.
    static func open(port: Int, receiveBufferBytes: Int? = nil) async throws -> ServerConnection {
        try await offPool {
            ServerConnection(socket: try TestSocket(port: port, receiveBufferBytes: receiveBufferBytes))
        }
    }

    /// Sends `GET path` and reads nothing.
    func send(_ path: String) async throws {
        try await offPool { try self.socket.write("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") }
    }

    /// Sends `GET path` and returns the whole response.
    func get(_ path: String) async throws -> TestHTTPResponse {
        try await offPool {
            try self.socket.write("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            return try self.socket.readResponse()
        }
    }

    /// Reads a whole response (to a request sent with ``send(_:)``).
    func readResponse() async throws -> TestHTTPResponse {
        try await offPool { try self.socket.readResponse() }
    }

    /// Sends `GET path` (or `method`) with `headers` (whole lines) and returns the response head only (a stream's
    /// body follows in chunks).
    func getHead(_ path: String, headers: [String] = [], method: String = "GET") async throws -> TestHTTPResponse {
        let extra = headers.map { $0 + "\r\n" }.joined()
        return try await offPool {
            try self.socket.write("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n")
            return try self.socket.readResponseHead()
        }
    }

    /// The next chunk of a chunked body; nil at its end.
    func nextChunk() async throws -> [UInt8]? {
        try await offPool { try TestHTTPClient.readChunk(from: self.socket) }
    }

    /// Whether the server closes the connection within `timeout`.
    func closedByPeer(within timeout: Duration = .seconds(5)) async -> Bool {
        (try? await offPool { self.socket.closedByPeer(within: timeout) }) ?? false
    }

    func close() { socket.close() }
}
