import EventLoop

/// Where an event stream's bytes go: one open `text/event-stream` reply, or a test's in-memory buffer.
///
/// Writes are bounded: a sink refuses bytes while its reader is too slow, and calls ``onDrain`` once the
/// reader has caught up; what the reader gets then is the writer's decision (see ``EventStreamWriter``).
@LoopActor
public protocol EventSink: AnyObject {
    /// Writes bytes framed as SSE for this stream alone. Returns false when closed or backed up.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool

    /// Writes bytes shared by many streams (encoded once for all of them). Returns false when closed or
    /// backed up.
    @discardableResult
    func send(_ chunk: ServerSentEventChunk) -> Bool

    /// Called once the reader has taken what was waiting, after a refused write.
    var onDrain: (@LoopActor () -> Void)? { get set }

    /// Called once when the stream ends, whichever side ended it.
    var onClose: (@LoopActor () -> Void)? { get set }

    /// Ends the stream cleanly.
    func end()
}
