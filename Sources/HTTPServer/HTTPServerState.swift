extension HTTPServer {
    /// Where a server is in its life. It moves forward only: `idle` → `started` → `draining` → `stopping` →
    /// `stopped` (a server that never started goes from `idle` to `stopped`).
    public enum State: Sendable, Equatable {
        /// Created; nothing listens yet. ``HTTPServer/start()`` moves on to `started`.
        case idle
        /// Listening and serving.
        case started
        /// Not accepting connections since ``HTTPServer/startDraining()``: connections waiting for a request
        /// are closed, a request already arriving is answered and its connection closed, open event streams
        /// go on until ``HTTPServer/shutdown(flushTimeout:)``.
        case draining
        /// ``HTTPServer/shutdown(flushTimeout:)`` is ending streams, answering deferred requests and flushing.
        case stopping
        /// Every connection is closed; the server cannot start again.
        case stopped
    }
}
