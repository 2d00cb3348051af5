extension ConnectionDeadlines {
    /// The deadlines of one connection: what each event does to them, and whether a sweep finds the connection
    /// overdue. A value with no I/O and no clock of its own: ``ConnectionDeadlines`` reads the time and the
    /// socket and passes them in, and closes the connection when a sweep answers ``SweepAction/close``.
    ///
    /// - A **request head** (slowloris) must arrive within the timeout from accept and from each response;
    ///   dispatch clears the deadline. Draining makes every pending head deadline due at once.
    /// - **Output** that waits unsent and does not shrink, while the socket takes no more, for the write
    ///   timeout (the timeout, or the stream timeout while the connection carries an event stream) means a
    ///   client that stopped reading.
    struct StateMachine: Equatable {
        /// When the next request head must have arrived; nil while a request is being served.
        private(set) var headDeadline: ContinuousClock.Instant?
        /// How long output may wait unsent before the client counts as gone.
        private(set) var writeTimeout: Duration
        /// Since when sweeps have seen output waiting unsent and not shrinking, pass after pass (nil once one
        /// saw none, or less than the pass before).
        private(set) var outputStalledSince: ContinuousClock.Instant?
        /// The output bytes waiting at the last sweep.
        private(set) var outputWaiting = 0

        /// What a sweep decided for the connection.
        enum SweepAction: Equatable {
            /// Nothing to do.
            case none
            /// The connection is past a deadline: shut its socket down.
            case close
        }

        /// A connection accepted at `now`: its first head is due within `timeout`, as is any output.
        init(acceptedAt now: ContinuousClock.Instant, timeout: Duration) {
            headDeadline = now + timeout
            writeTimeout = timeout
        }

        /// A request head arrived complete: no deadline while it is served.
        mutating func requestArrived() {
            headDeadline = nil
        }

        /// The connection now carries an event stream: its output may wait up to `streamTimeout`.
        mutating func streamStarted(streamTimeout: Duration) {
            writeTimeout = streamTimeout
        }

        /// A response went out (or a stream ended) at `now`: the next head is due within `timeout`, or at
        /// once while draining (nothing to wait for); output waits at most `timeout` again.
        mutating func responseSent(at now: ContinuousClock.Instant, timeout: Duration, draining: Bool) {
            headDeadline = draining ? now : now + timeout
            writeTimeout = timeout
        }

        /// Draining began at `now`: a connection waiting for a head is due at once; one being served is not.
        mutating func drainStarted(at now: ContinuousClock.Instant) {
            if headDeadline != nil { headDeadline = now }
        }

        /// The connection is gone: no deadline applies any more.
        mutating func closed() {
            headDeadline = nil
        }

        /// One pass of the sweep at `now`, with `outputWaiting` bytes unsent.
        ///
        /// Output counts as stalled from a pass where bytes wait, no fewer than at the pass before, while at
        /// every later pass they still do and the socket takes no more (the kernel's send buffer is full).
        /// NB: the last condition matters: bytes written in the same loop turn as the sweep (a keepalive, an
        /// event) wait until the next turn even on a healthy stream, and a sweep that keeps meeting such bytes
        /// must not take the stream for a stalled one (found by the tests under ThreadSanitizer, where the turns
        /// are slow). The socket is asked (`socketAcceptsOutput`, a system call) only from the second such
        /// pass on: in a busy fan-out most connections have bytes waiting at some pass.
        ///
        /// A late head while a response is still being written is not late: its deadline moves on (unless
        /// `draining`: it stays due, and the connection closes at the first sweep after its output has gone).
        /// A connection found overdue gets fresh deadlines (it is being closed; a later sweep lets go of it).
        mutating func sweep(
            at now: ContinuousClock.Instant, outputWaiting waiting: Int, timeout: Duration, draining: Bool,
            socketAcceptsOutput: () -> Bool
        ) -> SweepAction {
            let overdue = isOverdue(
                at: now, outputWaiting: waiting, timeout: timeout, draining: draining, socketAcceptsOutput)
            outputWaiting = waiting
            guard overdue else { return .none }
            headDeadline = now + timeout
            outputStalledSince = nil
            return .close
        }

        private mutating func isOverdue(
            at now: ContinuousClock.Instant, outputWaiting waiting: Int, timeout: Duration, draining: Bool,
            _ socketAcceptsOutput: () -> Bool
        ) -> Bool {
            if waiting == 0 || waiting < outputWaiting {
                outputStalledSince = nil
            } else if let since = outputStalledSince {
                if socketAcceptsOutput() {
                    outputStalledSince = nil
                } else if now - since >= writeTimeout {
                    return true
                }
            } else {
                outputStalledSince = now
            }
            guard let deadline = headDeadline, deadline <= now else { return false }
            if waiting > 0 {
                if !draining { headDeadline = now + timeout }
                return false
            }
            return true
        }
    }
}
