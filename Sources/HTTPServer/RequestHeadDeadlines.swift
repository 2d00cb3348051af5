import CLibevent
import EventLoop

#if canImport(Glibc)
import Glibc
#endif

/// Closes connections whose next request head does not arrive within the timeout (slowloris).
///
/// evhttp's own timeout restarts with every byte it reads, so a client dripping one header line at a time
/// would hold a connection forever. Every connection's bufferevent is made here (`evhttp_set_bevcb`) and
/// given a deadline, from accept and again after each response; the request's dispatch clears it. A
/// periodic sweep shuts down the socket of a connection past its deadline, so evhttp sees end-of-file and
/// frees the connection itself.
///
/// NB: the sweep must never touch a bufferevent evhttp has freed. It holds one reference on each
/// (`bufferevent_incref`) until evhttp has let go of it: the connection's close callback for counted
/// connections, or, for the others, the sweep seeing that evhttp cleared its callbacks (bufferevent_free
/// does that first). The socket closes when the last reference goes. Each connection's ``ConnectionRecord``
/// holds its deadline, so a request sets and clears it without a lookup.
@LoopActor
final class RequestHeadDeadlines {
    /// How long a request head may take, from accept or from the previous response.
    let timeout: Duration

    /// Every connection evhttp has not let go of yet, by its bufferevent.
    private(set) var records: [OpaquePointer: ConnectionRecord] = [:]
    private var sweeper: LoopTimer?
    /// Draining: a connection waiting for its next head is closed at the next sweep instead.
    private var closesIdleConnections = false

    init(timeout: Duration) {
        self.timeout = timeout
    }

    /// Starts the periodic sweep (every 250 ms, or a quarter of a shorter timeout).
    ///
    /// NB: the sweep also lets go of connections evhttp closed on its own (a malformed head), whose sockets
    /// close only then: a short period keeps a flood of those from holding descriptors. Checking 10,000 open
    /// connections takes well under a millisecond.
    func start() {
        let timer = LoopTimer(repeats: true) { [weak self] in self?.sweep() }
        timer.schedule(after: min(.milliseconds(250), timeout / 4))
        sweeper = timer
    }

    /// The bufferevent for a new connection (evhttp sets its socket), with a deadline for its first head.
    func makeBufferEvent(base: OpaquePointer) -> OpaquePointer? {
        guard let bufferevent = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        bufferevent_incref(bufferevent)
        records[bufferevent] = ConnectionRecord(bufferevent: bufferevent, headDeadline: ContinuousClock.now + timeout)
        return bufferevent
    }

    /// The record of the connection on `bufferevent`, while evhttp has not let go of it.
    func record(of bufferevent: OpaquePointer) -> ConnectionRecord? {
        records[bufferevent]
    }

    /// A response went out: the next head has a deadline again (none to wait for while draining).
    func awaitNextRequest(on record: ConnectionRecord) {
        guard !record.isClosed else { return }
        record.headDeadline = closesIdleConnections ? ContinuousClock.now : ContinuousClock.now + timeout
    }

    /// Draining: every connection waiting for a request head (idle keep-alive, or a head still arriving) is
    /// closed at the next sweep, and so is each connection once its response has gone out.
    func closeIdleConnections() {
        closesIdleConnections = true
        let now = ContinuousClock.now
        for record in records.values where record.headDeadline != nil { record.headDeadline = now }
    }

    /// evhttp is freeing the connection of this bufferevent: let go of it. Returns its record.
    func connectionClosed(_ bufferevent: OpaquePointer) -> ConnectionRecord? {
        guard let record = records.removeValue(forKey: bufferevent) else { return nil }
        release(record)
        return record
    }

    /// Lets go of every bufferevent (after evhttp_free, at shutdown).
    func releaseAll() {
        sweeper?.cancel()
        sweeper = nil
        for record in records.values { release(record) }
        records.removeAll()
    }

    private func release(_ record: ConnectionRecord) {
        record.isClosed = true
        record.headDeadline = nil
        bufferevent_decref(record.bufferevent)
    }

    /// Whether evhttp has freed the bufferevent (only our reference keeps it): bufferevent_free clears the
    /// callbacks, and evhttp always keeps its event callback set on a live connection.
    nonisolated private static func isReleasedByEvhttp(_ bufferevent: OpaquePointer) -> Bool {
        var eventCallback: bufferevent_event_cb?
        bufferevent_getcb(bufferevent, nil, nil, &eventCallback, nil)
        return eventCallback == nil
    }

    private func sweep() {
        let now = ContinuousClock.now
        for (bufferevent, record) in records {
            if Self.isReleasedByEvhttp(bufferevent) {
                records[bufferevent] = nil
                release(record)
                continue
            }
            guard let deadline = record.headDeadline, deadline <= now else { continue }
            // A response still being written is not a late head (evhttp's write timeout covers it).
            if evbuffer_get_length(bufferevent_get_output(bufferevent)) > 0 {
                record.headDeadline = now + timeout
                continue
            }
            let socket = bufferevent_getfd(bufferevent)
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            // NB: evhttp notices the end-of-file and frees the connection; a later sweep lets go of it.
            record.headDeadline = now + timeout
        }
    }
}
