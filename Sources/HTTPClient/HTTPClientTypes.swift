/// An outgoing request.
public struct HTTPClientRequest: Sendable {
    /// The absolute URL (`http` or `https`).
    public var url: String
    /// Request headers.
    public var headers: [(name: String, value: String)]
    /// A POST body; nil sends a GET.
    public var body: [UInt8]?
    /// Total time allowed for the transfer; nil uses the client's default.
    public var timeout: Duration?

    /// Creates a GET (or, with a body, POST) request.
    public init(
        url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, timeout: Duration? = nil
    ) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A complete response from upstream.
public struct HTTPClientResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Response headers in order (names as sent).
    public var headers: [(name: String, value: String)]
    /// The body, decompressed if the server compressed it.
    public var body: [UInt8]

    /// The value of a header, case-insensitively.
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}

/// Why a transfer produced no response. HTTP error statuses are *not* errors here: they are responses.
public enum HTTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host name did not resolve.
    case resolveFailed(String)
    /// The TCP (or TLS) connection could not be made.
    case connectFailed(String)
    /// The connect or total timeout passed.
    case timedOut(String)
    /// The response body exceeded the configured limit.
    case responseTooLarge(limit: Int)
    /// The URL is malformed or uses an unsupported scheme.
    case invalidURL(String)
    /// The task was cancelled; the transfer was aborted.
    case cancelled
    /// Any other transport failure (reset, malformed response, TLS).
    case transport(String)

    public var description: String {
        switch self {
        case .resolveFailed(let detail): "could not resolve host: \(detail)"
        case .connectFailed(let detail): "could not connect: \(detail)"
        case .timedOut(let detail): "timed out: \(detail)"
        case .responseTooLarge(let limit): "response larger than \(limit) bytes"
        case .invalidURL(let detail): "invalid URL: \(detail)"
        case .cancelled: "cancelled"
        case .transport(let detail): "transfer failed: \(detail)"
        }
    }
}

/// Limits of an ``HTTPClient``.
public struct HTTPClientConfiguration: Sendable {
    /// Time allowed to connect.
    public var connectTimeout: Duration
    /// Default total time per request (queueing for a connection included).
    public var requestTimeout: Duration
    /// Most connections open at once to one host; further requests wait in curl's queue.
    public var maxConnectionsPerHost: Int
    /// Idle connections kept for reuse.
    public var maxCachedConnections: Int
    /// Largest accepted response body.
    public var maxResponseBytes: Int
    /// The `User-Agent` header.
    public var userAgent: String

    /// Creates a configuration.
    public init(
        connectTimeout: Duration = .seconds(5), requestTimeout: Duration = .seconds(15),
        maxConnectionsPerHost: Int = 1024, maxCachedConnections: Int = 1024, maxResponseBytes: Int = 8 * 1024 * 1024,
        userAgent: String = "vmhost/1.0"
    ) {
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.maxCachedConnections = maxCachedConnections
        self.maxResponseBytes = maxResponseBytes
        self.userAgent = userAgent
    }
}
