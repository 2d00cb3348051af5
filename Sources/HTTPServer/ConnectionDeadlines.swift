import CLibevent
import EventLoop

#if canImport(Glibc)
import Glibc
#endif

/// Every timeout of the server's connections, kept by one periodic sweep instead of a libevent timer per
/// socket event.
///
/// - **Request heads** (slowloris): a connection's next request, head and body, must arrive within
///   ``HTTPServerConfiguration/idleTimeout`` from accept and from each response; dispatch clears the deadline.
///   (evhttp's own timeout restarts with every byte it reads, so a client dripping one header line at a time
///   would hold a connection forever.)
/// - **Writes**: output that waits unsent and does not shrink, while the socket takes no more, pass after pass,
///   for the connection's write timeout (``HTTPServerConfiguration/idleTimeout``, or
///   ``HTTPServerConfiguration/streamTimeout`` while it carries an event stream) closes the connection: a client that stopped reading. (A stalled stream takes
///   no more output once it is over ``HTTPServerConfiguration/streamMaxPendingBytes``, so its output stays.)
///
/// A connection past either is shut down (`shutdown(2)`), so evhttp sees end-of-file and frees it itself.
///
/// NB: evhttp is given no timeouts at all. With them, every write to a stream re-armed a timer on its
/// bufferevent, three per delivery, more than all of the reference server's event handling; the sweep costs a
/// little per connection per period instead (docs/performance.md, "Receipts").
///
/// NB: the sweep must never touch a bufferevent evhttp has freed. It holds one reference on each
/// (`bufferevent_incref`) until evhttp has let go of it: the connection's close callback for counted
/// connections, or, for the others, the sweep seeing that evhttp cleared its callbacks (bufferevent_free
/// does that first). The socket closes when the last reference goes. Each connection's ``ConnectionRecord``
/// holds its deadlines, so a request sets and clears them without a lookup.
///
/// The decisions (when a connection is due, what each event does to its deadlines) are
/// ``ConnectionDeadlines/StateMachine``'s, a value per connection; this class does the I/O: the clock,
/// the libevent buffers, `poll(2)` and `shutdown(2)`.
@LoopActor
final class ConnectionDeadlines {
    /// How long a request head may take, from accept or from the previous response; also how long a response
    /// may wait unsent.
    let timeout: Duration
    /// How long an event stream's output may wait unsent.
    let streamTimeout: Duration
    /// The server's clock.
    let clock: LoopClock

    /// Every open connection, counted from accept until evhttp lets go of it.
    var limit: ConnectionLimit
    /// Every connection evhttp has not let go of yet, by its bufferevent.
    private(set) var records: [OpaquePointer: ConnectionRecord] = [:]
    private var sweeper: LoopTimer?
    /// Draining: a connection waiting for its next head is closed at the next sweep instead.
    private var closesIdleConnections = false
    /// While shutting down (``watchOutput(_:)``): each connection's output buffer with our callback on it.
    private var outputWatches: [OpaquePointer: OpaquePointer] = [:]
    /// While shutting down: called whenever a watched output buffer changes or a connection goes.
    private var onOutputProgress: (@LoopActor () -> Void)?
    /// While shutting down: the watched connections whose output is not all written yet.
    private var connectionsWithOutput = 0

    init(timeout: Duration, streamTimeout: Duration, limit: ConnectionLimit, clock: LoopClock) {
        self.limit = limit
        self.timeout = timeout
        self.streamTimeout = streamTimeout
        self.clock = clock
    }

    /// Starts the periodic sweep (every 250 ms, or a quarter of a shorter timeout).
    ///
    /// NB: the sweep also lets go of connections evhttp closed on its own (a malformed head), whose sockets
    /// close only then: a short period keeps a flood of those from holding descriptors. Checking 10,000 open
    /// connections takes well under a millisecond.
    func start() {
        let timer = LoopTimer(clock: clock, repeats: true) { [weak self] in self?.sweep() }
        timer.schedule(after: min(.milliseconds(250), timeout / 4))
        sweeper = timer
    }

    /// The bufferevent for a new connection (evhttp sets its socket), with a deadline for its first head.
    func makeBufferEvent(base: OpaquePointer) -> OpaquePointer? {
        guard let bufferevent = bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)) else {
            return nil
        }
        bufferevent_incref(bufferevent)
        records[bufferevent] = ConnectionRecord(
            bufferevent: bufferevent, admission: limit.accepted(),
            deadlines: StateMachine(acceptedAt: clock.now, timeout: timeout))
        return bufferevent
    }

    /// The record of the connection on `bufferevent`, while evhttp has not let go of it.
    func record(of bufferevent: OpaquePointer) -> ConnectionRecord? {
        records[bufferevent]
    }

    /// A request head arrived complete: no deadline while it is served.
    func requestArrived(on record: ConnectionRecord) {
        record.deadlines.requestArrived()
    }

    /// The connection now carries an event stream: its output may wait up to the stream timeout.
    func streamStarted(on record: ConnectionRecord) {
        record.deadlines.streamStarted(streamTimeout: streamTimeout)
    }

    /// A response went out (or a stream ended): the next head has a deadline again (none to wait for while
    /// draining), and output waits at most the ordinary write timeout.
    func awaitNextRequest(on record: ConnectionRecord) {
        guard !record.isClosed else { return }
        record.deadlines.responseSent(at: clock.now, timeout: timeout, draining: closesIdleConnections)
    }

    /// Draining: every connection waiting for a request head (idle keep-alive, or a head still arriving) is
    /// closed at the next sweep, and so is each connection once its response has gone out.
    func closeIdleConnections() {
        closesIdleConnections = true
        let now = clock.now
        for record in records.values { record.deadlines.drainStarted(at: now) }
    }

    /// evhttp is freeing the connection of this bufferevent: let go of it.
    func connectionClosed(_ bufferevent: OpaquePointer) {
        guard let record = records.removeValue(forKey: bufferevent) else { return }
        release(record)
        onOutputProgress?()
    }

    /// Whether a watched connection (``watchOutput(_:)``) has output waiting unsent.
    var hasOutputWaiting: Bool { connectionsWithOutput > 0 }

    /// Shutting down: calls `progress` whenever a connection's output buffer changes (bytes written to the
    /// socket) or a connection goes, until ``releaseAll()``, so shutdown awaits the last byte instead of
    /// polling for it (an `evbuffer` callback on each connection's output).
    func watchOutput(_ progress: @escaping @LoopActor () -> Void) {
        onOutputProgress = progress
        let context = Unmanaged.passUnretained(self).toOpaque()
        for (bufferevent, record) in records where outputWatches[bufferevent] == nil {
            // NB: a connection evhttp has let go of writes nothing more: its bytes are not waited for.
            guard !record.isClosed, !Self.isReleasedByEvhttp(bufferevent) else { continue }
            let output = bufferevent_get_output(bufferevent)
            guard let entry = evbuffer_add_cb(output, connectionOutputChanged, context) else { continue }
            outputWatches[bufferevent] = entry
            if evbuffer_get_length(output) > 0 { connectionsWithOutput += 1 }
        }
    }

    /// A watched output buffer went from `before` bytes to `after`.
    fileprivate func outputChanged(from before: Int, to after: Int) {
        if before == 0, after > 0 {
            connectionsWithOutput += 1
        } else if before > 0, after == 0 {
            connectionsWithOutput -= 1
        }
        onOutputProgress?()
    }

    /// Lets go of every bufferevent (after evhttp_free, at shutdown).
    func releaseAll() {
        sweeper?.cancel()
        sweeper = nil
        onOutputProgress = nil
        for record in records.values { release(record) }
        records.removeAll()
        connectionsWithOutput = 0
    }

    private func release(_ record: ConnectionRecord) {
        record.freeReadHold()
        limit.release(record.admission)
        record.isClosed = true
        record.deadlines.closed()
        if let entry = outputWatches.removeValue(forKey: record.bufferevent) {
            let output = bufferevent_get_output(record.bufferevent)
            if evbuffer_get_length(output) > 0 { connectionsWithOutput -= 1 }
            evbuffer_remove_cb_entry(output, entry)
        }
        bufferevent_decref(record.bufferevent)
    }

    /// Whether evhttp has freed the bufferevent (only our reference keeps it): bufferevent_free clears the
    /// callbacks, and evhttp always keeps its event callback set on a live connection.
    nonisolated private static func isReleasedByEvhttp(_ bufferevent: OpaquePointer) -> Bool {
        var eventCallback: bufferevent_event_cb?
        bufferevent_getcb(bufferevent, nil, nil, &eventCallback, nil)
        return eventCallback == nil
    }

    /// Whether the connection's socket would take more bytes now (`poll` for `POLLOUT`, not waiting).
    nonisolated private static func acceptsOutput(_ bufferevent: OpaquePointer) -> Bool {
        let socket = bufferevent_getfd(bufferevent)
        guard socket >= 0 else { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
        return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLOUT) != 0
    }

    private func sweep() {
        let now = clock.now
        for (bufferevent, record) in records {
            if Self.isReleasedByEvhttp(bufferevent) {
                records[bufferevent] = nil
                release(record)
                onOutputProgress?()
                continue
            }
            let waiting = evbuffer_get_length(bufferevent_get_output(bufferevent))
            let action = record.deadlines.sweep(
                at: now, outputWaiting: waiting, timeout: timeout, draining: closesIdleConnections,
                socketAcceptsOutput: { Self.acceptsOutput(bufferevent) })
            switch action {
            case .none:
                break
            case .close:
                let socket = bufferevent_getfd(bufferevent)
                if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
            // NB: evhttp notices the end-of-file and frees the connection; a later sweep lets go of it.
            }
        }
    }
}

/// libevent's callback of a watched output buffer (``ConnectionDeadlines/watchOutput(_:)``). NB: a function
/// outside the loop's isolation, like `loopTimerFired`: libevent calls it on the loop thread.
private func connectionOutputChanged(
    _ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ context: UnsafeMutableRawPointer?
) {
    guard let context, let info else { return }
    let before = info.pointee.orig_size
    let after = before + info.pointee.n_added - info.pointee.n_deleted
    let deadlines = Unmanaged<ConnectionDeadlines>.fromOpaque(context).takeUnretainedValue()
    LoopActor.assumeIsolated { deadlines.outputChanged(from: before, to: after) }
}
