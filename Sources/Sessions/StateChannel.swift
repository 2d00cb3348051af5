import EventLoop
import HTTPServer
import JSON
import JSONPatch

/// How a subscriber wants changes.
public enum StreamFormat: Sendable, Equatable {
    /// A snapshot first, then RFC 6902 patches.
    case patches
    /// Every change as a full snapshot (`?format=snapshot`).
    case snapshots
}

/// The state of one view model as a versioned stream of events.
///
/// Each change is encoded and diffed **once**, framed as SSE bytes once, and those same bytes are written
/// to every subscriber; a bounded ring of recent patch events serves `Last-Event-ID` resume. Slow readers
/// are resynchronised with a snapshot when their connection drains.
@LoopActor
public final class StateChannel {
    /// The version of the current state; starts at 1 and increases with every change.
    public private(set) var version: Int = 1
    /// The current state, including `version`.
    public private(set) var state: JSONValue
    /// The current state serialised (what `GET` answers).
    public private(set) var stateBytes: [UInt8]
    /// How many patch events are kept for resume.
    public let replayCapacity: Int

    /// The state as the view model last reported it (without `version`), to skip changes that are not.
    private var reported: JSONValue
    private var replay: [(version: Int, event: [UInt8])] = []
    private var replayStart = 0
    private var cachedSnapshotEvent: [UInt8]?
    private var subscribers: [ObjectIdentifier: Subscriber] = [:]
    private let retryMilliseconds: Int

    /// Creates a channel at version 1.
    /// - Parameters:
    ///   - initial: the state without `version`.
    ///   - replayCapacity: patch events kept for resume.
    ///   - retryMilliseconds: the `retry:` value sent once per stream.
    public init(initial: JSONValue, replayCapacity: Int = 64, retryMilliseconds: Int = 3000) {
        self.replayCapacity = replayCapacity
        self.retryMilliseconds = retryMilliseconds
        reported = initial
        state = Self.versioned(initial, version: 1)
        stateBytes = state.serializedBytes
    }

    /// Number of open streams on this channel.
    public var subscriberCount: Int { subscribers.count }

    /// Publishes a new state (without `version`); a no-op when nothing changed.
    public func publish(_ newState: JSONValue) {
        guard newState != reported else { return }
        reported = newState
        let next = Self.versioned(newState, version: version + 1)
        let operations = JSONPatch.diff(from: state, to: next)
        version += 1
        state = next
        stateBytes = next.serializedBytes
        cachedSnapshotEvent = nil

        var patchBytes: [UInt8] = []
        patchBytes.reserveCapacity(64)
        JSONPatch.serialize(operations, into: &patchBytes)
        let event = Self.frame(event: "patch", id: version, data: patchBytes)
        remember(version: version, event: event)

        for subscriber in subscribers.values {
            subscriber.deliver(patchEvent: event, channel: self)
        }
    }

    /// Attaches a stream: sends `retry`, then either the patches after `lastEventID` (when still in the
    /// ring) or a snapshot, then every later change.
    public func subscribe(_ stream: ServerSentEventStream, format: StreamFormat, lastEventID: Int?) {
        let subscriber = Subscriber(stream: stream, format: format)
        let key = ObjectIdentifier(stream)
        subscribers[key] = subscriber
        stream.onClose = { [weak self] in self?.subscribers[key] = nil }
        stream.onDrain = { [weak self, weak subscriber] in
            guard let self, let subscriber else { return }
            subscriber.drained(channel: self)
        }
        var first = Array("retry: \(retryMilliseconds)\n".utf8)
        if let lastEventID, format == .patches, let missed = patches(after: lastEventID) {
            for event in missed { first.append(contentsOf: event) }
        } else {
            first.append(contentsOf: snapshotEvent)
        }
        stream.send(first)
    }

    /// Ends every stream of this channel (session deleted or expired, server shutting down).
    public func close() {
        for subscriber in Array(subscribers.values) {
            subscriber.stream.end()
        }
        subscribers.removeAll()
    }

    /// The current state as a framed `snapshot` event, built at most once per version.
    var snapshotEvent: [UInt8] {
        if let cachedSnapshotEvent { return cachedSnapshotEvent }
        let event = Self.frame(event: "snapshot", id: version, data: stateBytes)
        cachedSnapshotEvent = event
        return event
    }

    // MARK: Replay ring

    private func remember(version: Int, event: [UInt8]) {
        if replay.count < replayCapacity {
            replay.append((version, event))
        } else {
            replay[replayStart] = (version, event)
            replayStart = (replayStart + 1) % replayCapacity
        }
    }

    /// The patch events after `lastEventID` in order, or nil when the ring no longer covers them.
    func patches(after lastEventID: Int) -> [[UInt8]]? {
        if lastEventID == version { return [] }
        guard lastEventID < version else { return nil }
        let count = replay.count
        guard count > 0 else { return nil }
        let oldest = replay[replayStart % count].version
        guard lastEventID + 1 >= oldest else { return nil }
        let skip = lastEventID + 1 - oldest
        return (skip..<count).map { replay[(replayStart + $0) % count].event }
    }

    // MARK: Framing

    static func versioned(_ state: JSONValue, version: Int) -> JSONValue {
        var object = JSONObject()
        object["version"] = .int(version)
        if let fields = state.objectValue {
            for (key, value) in fields where key != "version" { object[key] = value }
        }
        return .object(object)
    }

    /// `id: N\nevent: NAME\ndata: DATA\n\n`. DATA is compact JSON, which never contains a raw newline.
    static func frame(event: String, id: Int, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + 40)
        bytes.append(contentsOf: "id: \(id)\nevent: \(event)\ndata: ".utf8)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }
}

/// One stream attached to a channel.
@LoopActor
final class Subscriber {
    let stream: ServerSentEventStream
    let format: StreamFormat
    /// Set when a write was refused: the reader gets a snapshot once its connection drains.
    private(set) var needsSnapshot = false

    init(stream: ServerSentEventStream, format: StreamFormat) {
        self.stream = stream
        self.format = format
    }

    func deliver(patchEvent: [UInt8], channel: StateChannel) {
        guard !needsSnapshot else { return }
        let event = format == .patches ? patchEvent : channel.snapshotEvent
        if !stream.send(event) {
            // NB: dropping the pending patches bounds memory; the snapshot on drain makes the client whole.
            needsSnapshot = true
        }
    }

    func drained(channel: StateChannel) {
        guard needsSnapshot else { return }
        if stream.send(channel.snapshotEvent) { needsSnapshot = false }
    }
}
