import CLibevent
import EventLoop

/// The connections a server serves at once (``HTTPServerConfiguration/maxConnections``).
///
/// A connection counts from its first request until evhttp closes it. A request on a further connection is
/// refused (the server answers `503 overloaded` and closes it); the refused connection's record
/// (``ConnectionRecord/Admission/refused``) lets its close callback know it was never counted.
struct ConnectionLimit {
    /// Connections served at most at once.
    let maximum: Int
    /// Number of counted connections.
    private(set) var count = 0

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Decides a connection's first request: counted, or refused when the limit is reached.
    mutating func admit() -> ConnectionRecord.Admission {
        guard count < maximum else { return .refused }
        count += 1
        return .counted
    }

    /// A counted connection closed.
    mutating func release() {
        count -= 1
    }
}

extension HTTPServer {
    /// What ``admit(_:)`` decided about a request.
    enum RequestAdmission {
        /// Served; the connection's record when the server knows it.
        case admitted(ConnectionRecord?)
        /// Over the limit: answered `503 overloaded`, and the connection closes.
        case refused
    }

    /// Counts the request's connection against the limit on its first request; the request head has arrived,
    /// so the connection has no head deadline while the request is served.
    func admit(_ raw: OpaquePointer) -> RequestAdmission {
        guard let connection = evhttp_request_get_connection(raw),
            let bufferevent = evhttp_connection_get_bufferevent(connection),
            let record = deadlines.record(of: bufferevent)
        else { return .admitted(nil) }
        if record.admission == .pending {
            record.connection = connection
            record.admission = connectionLimit.admit()
            // NB: a refused connection is closed after its 503; the close callback lets its socket go at once.
            setCloseCallback(on: connection)
        }
        guard record.admission == .counted else { return .refused }
        deadlines.requestArrived(on: record)
        return .admitted(record)
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
        if let bufferevent = evhttp_connection_get_bufferevent(connection),
            let record = deadlines.connectionClosed(bufferevent), record.admission == .counted
        {
            connectionLimit.release()
        }
        streams[connection]?.clientClosed()
    }
}
