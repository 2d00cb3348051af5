import CLibevent
import EventLoop

/// The connections a server serves at once (``HTTPServerConfiguration/maxConnections``).
///
/// A connection counts from its first request until evhttp closes it. A request on a further connection is
/// refused (the server answers `503 overloaded` and closes it); the refused connection is remembered until it
/// closes too, so its close callback finds it.
@LoopActor
final class ConnectionLimit {
    /// What ``admit(_:)`` decided.
    struct Admission {
        /// Whether the request may be served.
        var admitted: Bool
        /// Whether this is the connection's first request (the server sets its close callback then).
        var isNewConnection: Bool
    }

    /// Connections served at most at once.
    let maximum: Int
    private(set) var counted: Set<OpaquePointer> = []
    private var refused: Set<OpaquePointer> = []

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Number of counted connections.
    var count: Int { counted.count }

    /// Every connection known (counted or refused), for detaching their callbacks at teardown.
    var all: Set<OpaquePointer> { counted.union(refused) }

    /// Whether `connection` is counted (served, not refused).
    func contains(_ connection: OpaquePointer) -> Bool { counted.contains(connection) }

    /// Counts the request's connection on its first request; refuses it when the limit is reached.
    func admit(_ connection: OpaquePointer) -> Admission {
        guard !counted.contains(connection) else { return Admission(admitted: true, isNewConnection: false) }
        guard counted.count < maximum else {
            refused.insert(connection)
            return Admission(admitted: false, isNewConnection: true)
        }
        counted.insert(connection)
        return Admission(admitted: true, isNewConnection: true)
    }

    /// evhttp closed the connection.
    func closed(_ connection: OpaquePointer) {
        counted.remove(connection)
        refused.remove(connection)
    }
}

extension HTTPServer {
    /// Counts the request's connection against the limit on its first request; false when it is over.
    func admit(_ raw: OpaquePointer) -> Bool {
        guard let connection = evhttp_request_get_connection(raw) else { return true }
        let admission = connectionLimit.admit(connection)
        // NB: a refused connection is closed after its 503; the close callback lets its socket go at once.
        if admission.isNewConnection { setCloseCallback(on: connection) }
        guard admission.admitted else { return false }
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            headDeadlines.requestArrived(on: bufferevent)
        }
        return true
    }

    private func setCloseCallback(on connection: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_connection_set_closecb(
            connection,
            { connection, context in
                guard let connection, let context else { return }
                let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
                LoopActor.assumeIsolated { server.connectionClosed(connection) }
            }, context)
    }

    /// evhttp is closing a known connection; a stream on it ends.
    private func connectionClosed(_ connection: OpaquePointer) {
        connectionLimit.closed(connection)
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            headDeadlines.connectionClosed(bufferevent)
        }
        streams[connection]?.clientClosed()
    }
}
