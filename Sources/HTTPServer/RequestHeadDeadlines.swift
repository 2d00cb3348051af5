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
/// does that first). The socket closes when the last reference goes.
@LoopActor
final class RequestHeadDeadlines {
    /// How long a request head may take, from accept or from the previous response.
    let timeout: Duration

    private var held: Set<OpaquePointer> = []
    private var deadlines: [OpaquePointer: ContinuousClock.Instant] = [:]
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
        held.insert(bufferevent)
        deadlines[bufferevent] = ContinuousClock.now + timeout
        return bufferevent
    }

    /// A request head arrived complete: no deadline while it is served.
    func requestArrived(on bufferevent: OpaquePointer) {
        deadlines[bufferevent] = nil
    }

    /// A response went out: the next head has a deadline again (none to wait for while draining).
    func awaitNextRequest(on bufferevent: OpaquePointer) {
        guard held.contains(bufferevent) else { return }
        deadlines[bufferevent] = closesIdleConnections ? ContinuousClock.now : ContinuousClock.now + timeout
    }

    /// Draining: every connection waiting for a request head (idle keep-alive, or a head still arriving) is
    /// closed at the next sweep, and so is each connection once its response has gone out.
    func closeIdleConnections() {
        closesIdleConnections = true
        let now = ContinuousClock.now
        for bufferevent in deadlines.keys { deadlines[bufferevent] = now }
    }

    /// evhttp is freeing the connection of this bufferevent: let go of it.
    func connectionClosed(_ bufferevent: OpaquePointer) {
        deadlines[bufferevent] = nil
        release(bufferevent)
    }

    /// Lets go of every bufferevent (after evhttp_free, at shutdown).
    func releaseAll() {
        sweeper?.cancel()
        sweeper = nil
        deadlines.removeAll()
        for bufferevent in held { bufferevent_decref(bufferevent) }
        held.removeAll()
    }

    private func release(_ bufferevent: OpaquePointer) {
        guard held.remove(bufferevent) != nil else { return }
        bufferevent_decref(bufferevent)
    }

    /// Whether evhttp has freed the bufferevent (only our reference keeps it): bufferevent_free clears the
    /// callbacks, and evhttp always keeps its event callback set on a live connection.
    private func isReleasedByEvhttp(_ bufferevent: OpaquePointer) -> Bool {
        var eventCallback: bufferevent_event_cb?
        bufferevent_getcb(bufferevent, nil, nil, &eventCallback, nil)
        return eventCallback == nil
    }

    private func sweep() {
        for bufferevent in held where isReleasedByEvhttp(bufferevent) {
            deadlines[bufferevent] = nil
            release(bufferevent)
        }
        let now = ContinuousClock.now
        for (bufferevent, deadline) in deadlines where deadline <= now {
            // A response still being written is not a late head (evhttp's write timeout covers it).
            if evbuffer_get_length(bufferevent_get_output(bufferevent)) > 0 {
                deadlines[bufferevent] = now + timeout
                continue
            }
            let socket = bufferevent_getfd(bufferevent)
            if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            // NB: evhttp notices the end-of-file and frees the connection; a later sweep lets go of it.
            deadlines[bufferevent] = now + timeout
        }
    }
}
