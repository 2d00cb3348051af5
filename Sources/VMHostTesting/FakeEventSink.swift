import EventLoop
import EventStreams
import JSON
import JSONPatch

/// One event as a client reads it: a `retry:` line on its own, or the fields of an event.
public struct ReadEvent: Equatable, CustomStringConvertible, Sendable {
    public var retry: Int?
    public var id: String?
    public var event: String?
    public var data: String?

    /// An event with these fields.
    public init(retry: Int? = nil, id: String? = nil, event: String? = nil, data: String? = nil) {
        self.retry = retry
        self.id = id
        self.event = event
        self.data = data
    }

    /// The data as JSON.
    public func json() throws -> JSONValue { try JSONParser.parse(data ?? "") }

    public var description: String {
        if let retry { return "retry \(retry)" }
        return "\(event ?? "message") #\(id ?? "-") \(data ?? "")"
    }
}

/// An in-memory event sink: no socket; the test decides when writes are refused and when the reader drains.
@LoopActor
public final class FakeEventSink: EventSink {
    /// An open sink that accepts every write.
    public init() {}

    /// How many more writes are accepted (nil: all of them).
    public var acceptedWrites: Int?
    /// Every write offered, accepted or not.
    public private(set) var writeAttempts = 0
    /// The shared chunks written, in order.
    public private(set) var chunks: [ServerSentEventChunk] = []
    /// How many times ``end()`` ended the stream.
    public private(set) var endCount = 0
    public private(set) var isOpen = true
    private var written: [UInt8] = []
    private var read = 0

    public var onDrain: (@LoopActor () -> Void)?
    public var onClose: (@LoopActor () -> Void)?

    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
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
    public func send(_ chunk: ServerSentEventChunk) -> Bool {
        guard send(chunk.bytes) else { return false }
        chunks.append(chunk)
        return true
    }

    public func end() {
        guard isOpen else { return }
        endCount += 1
        closed()
    }

    /// The reader stops reading: every write is refused.
    public func stall() { acceptedWrites = 0 }

    /// The reader catches up after taking `accepting` more writes (nil: all).
    public func drain(accepting: Int? = nil) {
        acceptedWrites = accepting
        onDrain?()
    }

    /// The client goes away.
    public func clientCloses() {
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

    /// The bytes written since the last call (of this or ``takeEvents()``).
    public func takeBytes() -> [UInt8] {
        defer { read = written.count }
        return Array(written[read...])
    }

    /// The events written since the last call, parsed as an EventSource does.
    public func takeEvents() -> [ReadEvent] {
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
public struct ClientState {
    public var state: JSONValue = nil

    /// A client holding `state` (nothing yet by default).
    public init(state: JSONValue = nil) {
        self.state = state
    }

    /// Applies a `snapshot` or `patch` event.
    public mutating func apply(_ event: ReadEvent) throws {
        if event.event?.hasSuffix("snapshot") == true {
            state = try event.json()
        } else {
            state = try JSONPatch.apply(JSONPatch.parse(event.json()), to: state)
        }
    }
}
