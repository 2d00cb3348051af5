import EventLoop
import EventStreams
import JSON
import JSONPatch

/// One event as a client reads it: a `retry:` line on its own, or the fields of an event.
struct ReadEvent: Equatable, CustomStringConvertible {
    var retry: Int?
    var id: String?
    var event: String?
    var data: String?

    /// The data as JSON.
    func json() throws -> JSONValue { try JSONParser.parse(data ?? "") }

    var description: String {
        if let retry { return "retry \(retry)" }
        return "\(event ?? "message") #\(id ?? "-") \(data ?? "")"
    }
}

/// An in-memory event sink: no socket; the test decides when writes are refused and when the reader drains.
@LoopActor
final class FakeEventSink: EventSink {
    /// How many more writes are accepted (nil: all of them).
    var acceptedWrites: Int?
    /// Every write offered, accepted or not.
    private(set) var writeAttempts = 0
    /// The shared chunks written, in order.
    private(set) var chunks: [ServerSentEventChunk] = []
    /// How many times ``end()`` ended the stream.
    private(set) var endCount = 0
    private(set) var isOpen = true
    private var written: [UInt8] = []
    private var read = 0

    var onDrain: (@LoopActor () -> Void)?
    var onClose: (@LoopActor () -> Void)?

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        writeAttempts += 1
        guard isOpen else { return false }
        if let remaining = acceptedWrites {
            guard remaining > 0 else { return false }
            acceptedWrites = remaining - 1
        }
        written += bytes
        return true
    }

    @discardableResult
    func send(_ chunk: ServerSentEventChunk) -> Bool {
        guard send(chunk.bytes) else { return false }
        chunks.append(chunk)
        return true
    }

    func end() {
        guard isOpen else { return }
        endCount += 1
        closed()
    }

    /// The reader stops reading: every write is refused.
    func stall() { acceptedWrites = 0 }

    /// The reader catches up after taking `accepting` more writes (nil: all).
    func drain(accepting: Int? = nil) {
        acceptedWrites = accepting
        onDrain?()
    }

    /// The client goes away.
    func clientCloses() {
        guard isOpen else { return }
        closed()
    }

    private func closed() {
        isOpen = false
        let onClose = self.onClose
        self.onClose = nil
        onDrain = nil
        onClose?()
    }

    /// The events written since the last call, parsed as an EventSource does.
    func takeEvents() -> [ReadEvent] {
        let text = String(decoding: written[read...], as: UTF8.self)
        read = written.count
        var events: [ReadEvent] = []
        var current = ReadEvent()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty {
                if current != ReadEvent() { events.append(current) }
                current = ReadEvent()
            } else if line.hasPrefix("retry: ") {
                events.append(ReadEvent(retry: Int(line.dropFirst(7))))
            } else if line.hasPrefix("id: ") {
                current.id = String(line.dropFirst(4))
            } else if line.hasPrefix("event: ") {
                current.event = String(line.dropFirst(7))
            } else if line.hasPrefix("data: ") {
                current.data = String(line.dropFirst(6))
            }
        }
        return events
    }
}

/// A view model's state as a client following a stream holds it.
struct ClientState {
    var state: JSONValue = nil

    /// Applies a `snapshot` or `patch` event.
    mutating func apply(_ event: ReadEvent) throws {
        if event.event?.hasSuffix("snapshot") == true {
            state = try event.json()
        } else {
            state = try JSONPatch.apply(JSONPatch.parse(event.json()), to: state)
        }
    }
}
