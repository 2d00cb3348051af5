import CLibeventShims
import EventLoop

/// Writes the output that replies and stream events leave on their connections once the loop turn that made
/// them has run its other callbacks, instead of when the loop next finds each socket writable.
///
/// evhttp queues a reply in its connection's output buffer and enables the socket's write event; the loop's next
/// turn reports the socket writable and the bufferevent writes it, then disables the event again: two
/// `epoll_ctl` calls and one more event dispatched for every reply and every stream write, the same as the
/// reference server makes. Here the writes of a turn go out together at its end (``schedule(_:)``, one
/// `event_active`): the event enabled and disabled within one turn never reaches the kernel (the loop's epoll
/// changelist), and a reply written whole finishes at once (evhttp frees the request, and the connection reads
/// its next one). What a socket does not take stays in the buffer for the bufferevent, as before. Measured
/// with `strace -c` over 10 rounds of the 1,000-session benchmark (10,000 commands; `sse-bench -S 1000 -c 1000
/// -n 10 -e patch -f`): 77,228 → 14,067 `epoll_ctl` calls, most of those left made when its 2,000 connections open.
///
/// NB: batched at the end of the turn, not written at once: writing each reply as it is made woke the load
/// tool for every write (its socket's wakeup is paid by the writer on loopback), where writes made together
/// mostly find it awake.
@LoopActor
package final class OutputFlusher {
    /// Connections with output to write at the end of this turn, in the order they asked.
    private var pending: [ConnectionRecord] = []
    /// The list being written (kept to reuse its storage).
    private var writing: [ConnectionRecord] = []
    private var timer: LoopTimer?
    /// How many times a connection's output was written whole at the end of a turn (for tests).
    package private(set) var writtenWhole = 0

    init() {
        // NB: unowned: the timer is the flusher's.
        timer = LoopTimer { [unowned self] in self.flush() }
    }

    /// Writes `record`'s output at the end of this loop turn (once, however often it is asked).
    func schedule(_ record: ConnectionRecord) {
        guard !record.flushScheduled else { return }
        record.flushScheduled = true
        pending.append(record)
        if pending.count == 1 { timer?.fireSoon() }
    }

    private func flush() {
        swap(&pending, &writing)
        for record in writing {
            record.flushScheduled = false
            // NB: a connection evhttp freed in this turn (its close callback closed the record) is not touched.
            guard !record.isClosed else { continue }
            if vmh_bufferevent_write_now(record.bufferevent) != 0 { writtenWhole += 1 }
        }
        writing.removeAll(keepingCapacity: true)
    }
}
