import Foundation

/// The event stream of each session a client has handed out, so that every `VMHostSession` object of one id (from
/// `createSession()`, and from each `session(id:)`) shares one multiplexed stream. Held weakly: a session nobody
/// holds any more is forgotten.
final class SessionStreams: @unchecked Sendable {
    private struct Entry {
        weak var stream: SessionEventStream?
    }

    // NB: NSLock rather than Synchronization.Mutex, which Apple platforms have only from their 2024 releases.
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// The stream of session `id`, made by `make` when there is none.
    func stream(for id: String, make: () -> SessionEventStream) -> SessionEventStream {
        lock.lock()
        defer { lock.unlock() }
        if let stream = entries[id]?.stream { return stream }
        entries = entries.filter { $0.value.stream != nil }
        let stream = make()
        entries[id] = Entry(stream: stream)
        return stream
    }
}
