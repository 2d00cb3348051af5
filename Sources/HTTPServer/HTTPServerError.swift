/// Why a server could not start.
public enum HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ``HTTPServer/start()`` on a server that is already started (or draining, or stopping).
    case alreadyStarted
    /// ``HTTPServer/start()`` after ``HTTPServer/shutdown(flushTimeout:)``: a server runs once.
    case stopped
    /// The host and port do not form an address (`host:port`).
    case invalidAddress(String)
    /// The address cannot be bound (`address`, the system's reason).
    case cannotListen(address: String, reason: String)
    /// libevent could not create the HTTP server.
    case evhttpUnavailable

    public var description: String {
        switch self {
        case .alreadyStarted: "the server is already started"
        case .stopped: "the server was shut down and cannot start again"
        case .invalidAddress(let address): "invalid listen address \(address)"
        case .cannotListen(let address, let reason): "cannot listen on \(address): \(reason)"
        case .evhttpUnavailable: "evhttp_new failed"
        }
    }
}
