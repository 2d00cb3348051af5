import CLibeventShims
import EventLoop

/// What the server knows about one accepted connection, from accept (its bufferevent, made in
/// ``ConnectionDeadlines/makeBufferEvent(base:)``) until evhttp frees it.
///
/// A request finds its connection's record once, on arrival, and keeps it until its response is sent: the
/// connection limit and the head deadline then need no lookups per request (they were five hash-table
/// operations on every request; docs/performance.md, "Receipts").
@LoopActor
final class ConnectionRecord {
    /// The connection's place under ``HTTPServerConfiguration/maxConnections`` (``ConnectionLimit``).
    enum Admission: Equatable {
        /// Accepted within the limit.
        case counted
        /// Accepted past the limit; its first request decides (the reserve, or refused).
        case overLimit
        /// Past the limit, serving health and metrics requests from the reserve.
        case reserve
        /// Refused at its first request (answered `503 overloaded` and closed).
        case refused
    }

    /// The connection's bufferevent; the record holds one reference on it until evhttp has let go of it.
    let bufferevent: OpaquePointer
    /// evhttp's connection, known from the first request (its close callback is set then).
    var connection: OpaquePointer?
    /// The connection's place under the limit, decided at accept (and at its first request when past it).
    var admission: Admission
    /// Its request-head and write deadlines (``ConnectionDeadlines/StateMachine``).
    var deadlines: ConnectionDeadlines.StateMachine
    /// evhttp freed the connection: nothing may touch the bufferevent through this record any more.
    var isClosed = false
    /// Its output is to be written at the end of this loop turn (``OutputFlusher``).
    var flushScheduled = false
    /// The read hold that keeps its socket registered while a request waits for an answer given in a later turn
    /// (`vmh_read_hold_new`: no `epoll_ctl` delete and add around each such request); made at the first such
    /// request, kept until the connection closes.
    private var readHold: OpaquePointer?
    /// Whether the read hold is added (a request waits for its answer).
    private var isHoldingRead = false

    /// Keeps the socket registered for reading until ``releaseReadHold()``.
    func holdReading() {
        guard !isHoldingRead, !isClosed else { return }
        if readHold == nil { readHold = vmh_read_hold_new(bufferevent) }
        guard let readHold, vmh_read_hold_add(readHold) == 0 else { return }
        isHoldingRead = true
    }

    /// Removes the read hold, if added (the answer is written).
    func releaseReadHold() {
        guard isHoldingRead, let readHold else { return }
        vmh_read_hold_remove(readHold)
        isHoldingRead = false
    }

    /// Frees the read hold, if any. NB: before the socket closes (the close callback, the server's deinit).
    func freeReadHold() {
        guard let readHold else { return }
        vmh_read_hold_free(readHold)
        self.readHold = nil
        isHoldingRead = false
    }

    init(bufferevent: OpaquePointer, admission: Admission, deadlines: ConnectionDeadlines.StateMachine) {
        self.bufferevent = bufferevent
        self.admission = admission
        self.deadlines = deadlines
    }
}
