import CLibevent
import EventLoop

/// The connections a server serves at once (``HTTPServerConfiguration/maxConnections``), plus a small reserve
/// (``HTTPServerConfiguration/reservedConnections``) that only `GET /healthz` and `GET /metrics` may use, so a
/// node at its limit still answers its health checks and its monitoring.
///
/// A connection counts from accept until evhttp lets go of it, whether or not it has sent a request: a client
/// that opens connections and sends partial heads or bodies is counted like any other. One accepted while
/// ``maximum`` connections are open is over the limit: its first request is served from the reserve when it is
/// a health or metrics request and the reserve has room, and is otherwise refused (`503 overloaded`, and the
/// connection closes); a reserved connection serves those two paths only.
struct ConnectionLimit {
    /// Connections served at most at once (the reserve aside).
    let maximum: Int
    /// Connections beyond ``maximum`` kept for health and metrics requests.
    let reserve: Int
    /// Number of open connections, from accept.
    private(set) var count = 0
    /// Number of connections served from the reserve.
    private(set) var reserveInUse = 0

    init(maximum: Int, reserve: Int) {
        self.maximum = maximum
        self.reserve = reserve
    }

    /// A connection was accepted: counted, and whether it is within the limit.
    mutating func accepted() -> ConnectionRecord.Admission {
        count += 1
        return count <= maximum ? .counted : .overLimit
    }

    /// Takes a place of the reserve; false when it is full.
    mutating func takeReserve() -> Bool {
        guard reserveInUse < reserve else { return false }
        reserveInUse += 1
        return true
    }

    /// A connection evhttp let go of.
    mutating func release(_ admission: ConnectionRecord.Admission) {
        count -= 1
        if admission == .reserve { reserveInUse -= 1 }
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

    /// Decides a request by its connection's place: within the limit, in the reserve, or refused. The request
    /// head has arrived, so the connection has no head deadline while the request is served.
    func admit(_ raw: OpaquePointer) -> RequestAdmission {
        guard let connection = evhttp_request_get_connection(raw),
            let bufferevent = evhttp_connection_get_bufferevent(connection),
            let record = deadlines.record(of: bufferevent)
        else { return .admitted(nil) }
        if record.connection == nil {
            record.connection = connection
            // NB: the close callback releases the connection's count at once (the sweep would, later).
            setCloseCallback(on: connection)
        }
        switch record.admission {
        case .counted:
            break
        case .overLimit:
            let reserved = Self.mayUseReserve(raw) && deadlines.limit.takeReserve()
            record.admission = reserved ? .reserve : .refused
            guard reserved else { return .refused }
        case .reserve:
            guard Self.mayUseReserve(raw) else { return .refused }
        case .refused:
            return .refused
        }
        deadlines.requestArrived(on: record)
        return .admitted(record)
    }

    /// Whether the request is one the reserve serves: `GET /healthz` or `GET /metrics`, exactly.
    private static func mayUseReserve(_ raw: OpaquePointer) -> Bool {
        guard evhttp_request_get_command(raw) == EVHTTP_REQ_GET, let target = evhttp_request_get_uri(raw) else {
            return false
        }
        let path = String(cString: target)
        return path == "/healthz" || path == "/metrics"
    }

    /// Sets the close callback of a connection the server has seen a request on.
    func setCloseCallback(on connection: OpaquePointer) {
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
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            deadlines.connectionClosed(bufferevent)
        }
        streams[connection]?.clientClosed()
    }
}
