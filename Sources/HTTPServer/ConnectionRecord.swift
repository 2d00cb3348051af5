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
    /// While its request waits for an answer given in a later turn: the read hold that keeps its socket
    /// registered (`vmh_read_hold`: no `epoll_ctl` delete and add around each such request).
    private var readHold: OpaquePointer?

    /// Keeps the socket registered for reading until ``releaseReadHold()``.
    func holdReading() {
        guard readHold == nil, !isClosed else { return }
        readHold = vmh_read_hold(bufferevent)
    }

    /// Releases the read hold, if any. NB: before the socket closes (the close callback, the server's deinit).
    func releaseReadHold() {
        guard let readHold else { return }
        vmh_read_hold_release(readHold)
        self.readHold = nil
    }

    init(bufferevent: OpaquePointer, admission: Admission, deadlines: ConnectionDeadlines.StateMachine) {
        self.bufferevent = bufferevent
        self.admission = admission
        self.deadlines = deadlines
    }
}
