import EventLoop

/// Writes one event stream to its sink under the ``SlowReaderStateMachine``: changes while the reader
/// keeps up; after a refused write, nothing of that part until the sink drains, then its snapshot.
///
/// A value inside the stream's owner (a channel observer), which frames the events (their ids are its business),
/// writes them in the closures it passes, and calls ``drained(writeSnapshot:)`` from the sink's `onDrain`.
///
/// NB: a value, not an object of its own, and the owner wires the drain: every delivery reaches the owner, and
/// a separate writer object (and a weak reference to it from the sink's callback, which moved its reference
/// counts to a side table) cost a cache miss or two more per stream and delivery (cachegrind).
@LoopActor
public struct EventStreamWriter {
    /// Where the bytes go.
    public let sink: any EventSink
    private var machine: SlowReaderStateMachine

    /// A writer of `parts` to `sink`.
    public init(sink: any EventSink, parts: [String]) {
        self.sink = sink
        self.machine = SlowReaderStateMachine(parts: parts)
    }

    /// Whether the stream has ended.
    public var isEnded: Bool { machine.isEnded }

    /// A part changed: `write` writes its event to the sink it is given and returns whether the sink took it;
    /// not called while the part is stale or the stream has ended.
    public mutating func change(_ part: String, write: (any EventSink) -> Bool) {
        guard machine.changed(part) == .write else { return }
        // NB: dropping the pending changes bounds memory; the snapshot on drain makes the client whole.
        if !write(sink) { machine.writeRefused(part) }
    }

    /// Ends the stream (once).
    public mutating func end() {
        if machine.end() { sink.end() }
    }

    /// The sink drained: writes the snapshot of each stale part with `writeSnapshot` (the part and the sink;
    /// returns whether the sink took it), in order, until one is refused.
    public mutating func drained(writeSnapshot: (String, any EventSink) -> Bool) {
        for part in machine.partsToResync() {
            guard writeSnapshot(part, sink) else { return }
            machine.resynced(part)
        }
    }
}
