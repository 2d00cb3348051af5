import EventLoop

/// Limits, timeouts and error format of an ``HTTPServer``.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind (`127.0.0.1` by default).
    public var host: String
    /// Port to bind; 0 picks a free port (read it back from ``HTTPServer/port``).
    public var port: Int
    /// Largest accepted request body; larger bodies get `413 body_too_large`: from the head when its
    /// `Content-Length` is larger (the body is never read), as soon as a chunked body grows past it. A body
    /// arriving in part is never held beyond it.
    public var maxBodySize: Int
    /// Largest accepted request head.
    public var maxHeadersSize: Int
    /// Read/write timeout of ordinary connections: idle keep-alive connections and slow request heads are
    /// closed after this long.
    public var idleTimeout: Duration
    /// How often open event streams get a `: keepalive` comment.
    public var keepaliveInterval: Duration
    /// Timeout of event-stream connections (no client bytes are expected; the keepalives keep writes going).
    public var streamTimeout: Duration
    /// Output bytes allowed to wait unsent on one event stream before the reader counts as slow.
    public var streamMaxPendingBytes: Int
    /// Whether event streams are gzip-encoded for clients that accept it (each event is compressed once and
    /// shared by every gzip stream of a channel).
    public var compressStreams: Bool
    /// Listen backlog.
    public var backlog: Int
    /// Connections served at once. A request arriving on a further connection gets `503 overloaded` and the
    /// connection is closed (``reservedConnections`` aside). A connection counts from accept until it closes;
    /// one that never sends a complete request is closed by ``idleTimeout``.
    public var maxConnections: Int
    /// Headers added to every response and event stream (`X-VMHost-Node`).
    public var commonHeaders: [HTTPHeader] = []
    /// Renders every error the server answers (the application's error format); plain text by default.
    public var errorResponder: HTTPErrorResponder
    /// Connections beyond ``maxConnections`` that only `GET /healthz` and `GET /metrics` may use, so that a
    /// node at its limit still answers its health checks and its monitoring (8 by default).
    public var reservedConnections: Int
    /// Whether a `POST` whose `Origin` header is present and is neither the server's own origin (its
    /// authority equal to the request's `Host`) nor one of ``allowedOrigins`` is `403 forbidden_origin`.
    public var checksOrigin: Bool
    /// Origins besides the server's own whose pages may `POST` (`https://app.example.com`), compared without
    /// regard to case.
    public var allowedOrigins: [String]
    /// The clock of connection deadlines, request durations and shutdown's flush bound.
    public var clock: LoopClock

    /// Creates a configuration; defaults suit production on one machine.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxBodySize: Int = 64 * 1024, maxHeadersSize: Int = 16 * 1024,
        idleTimeout: Duration = .seconds(30), keepaliveInterval: Duration = .seconds(15),
        streamTimeout: Duration = .seconds(3600), streamMaxPendingBytes: Int = 256 * 1024, backlog: Int = 4096,
        maxConnections: Int = 20_000, reservedConnections: Int = 8, compressStreams: Bool = true,
        errorResponder: HTTPErrorResponder = .plainText, checksOrigin: Bool = false, allowedOrigins: [String] = [],
        clock: LoopClock = LoopClock()
    ) {
        self.host = host
        self.port = port
        self.maxBodySize = maxBodySize
        self.maxHeadersSize = maxHeadersSize
        self.idleTimeout = idleTimeout
        self.keepaliveInterval = keepaliveInterval
        self.streamTimeout = streamTimeout
        self.streamMaxPendingBytes = streamMaxPendingBytes
        self.backlog = backlog
        self.maxConnections = maxConnections
        self.compressStreams = compressStreams
        self.errorResponder = errorResponder
        self.reservedConnections = reservedConnections
        self.checksOrigin = checksOrigin
        self.allowedOrigins = allowedOrigins
        self.clock = clock
    }
}
