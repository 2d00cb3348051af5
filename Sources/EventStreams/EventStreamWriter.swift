import EventLoop

/// Writes one event stream to its sink under the ``SlowReaderStateMachine``: changes while the reader
/// keeps up; after a refused write, nothing of that part until the sink drains, then its snapshot.
///
/// The owner frames the events (their ids are its business) and writes them in the closures it passes.
@LoopActor
public final class EventStreamWriter {
    /// Where the bytes go.
    public let sink: any EventSink
    private var machine: SlowReaderStateMachine
    private let writeSnapshot: @LoopActor (String) -> Bool

    /// A writer of `parts` to `sink`.
    /// - Parameter writeSnapshot: writes a part's snapshot to the sink (on drain, for a stale part) and
    ///   returns whether the sink took it.
    public init(sink: any EventSink, parts: [String], writeSnapshot: @escaping @LoopActor (String) -> Bool) {
        self.sink = sink
        self.machine = SlowReaderStateMachine(parts: parts)
        self.writeSnapshot = writeSnapshot
        // NB: unowned, not weak: a weakly referenced object keeps its reference counts in a side table, and the
        // writer is retained at every delivery (a cache miss more per stream and delivery, callgrind). Safe: the
        // writer takes the callback back when it goes (`deinit`), so the sink never calls a writer that is gone.
        sink.onDrain = { [unowned self] in drained() }
    }

    isolated deinit {
        sink.onDrain = nil
    }

    /// Whether the stream has ended.
    public var isEnded: Bool { machine.isEnded }

    /// A part changed: `write` writes its event and returns whether the sink took it; not called while the
    /// part is stale or the stream has ended.
    public func change(_ part: String, write: () -> Bool) {
        guard machine.changed(part) == .write else { return }
        // NB: dropping the pending changes bounds memory; the snapshot on drain makes the client whole.
        if !write() { machine.writeRefused(part) }
    }

    /// Ends the stream (once).
    public func end() {
        if machine.end() { sink.end() }
    }

    private func drained() {
        for part in machine.partsToResync() {
            guard writeSnapshot(part) else { return }
            machine.resynced(part)
        }
    }
}
