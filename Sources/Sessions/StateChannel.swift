import EventLoop
import EventStreams
import JSON
import JSONPatch

/// A version published but held back until the journal has it.
public struct HeldVersion: Sendable {
    /// Its number.
    public var version: Int
    /// The state, with `version`.
    public var state: JSONValue
    /// `state` serialised: once, for the journal's entry and then for GET once committed.
    public var stateBytes: [UInt8]
    /// The RFC 6902 patch from the version before, serialised.
    public var patch: [UInt8]
}

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
/// to every subscriber; a bounded ring of recent patches serves `Last-Event-ID` resume. Slow readers are
/// resynchronised with a snapshot when their connection drains.
@LoopActor
public final class StateChannel {
    /// The view model's name in multiplexed streams (`search`, `products`).
    public let name: String
    /// The version of the current state; starts at 1 and increases with every change.
    public private(set) var version: Int = 1
    /// The current state, including `version` (built when first asked for after a change).
    public var state: JSONValue {
        if let cachedState { return cachedState }
        // NB: without held versions, `reported` is the state of `version` (publish keeps it so).
        let built = Self.versioned(reported, version: version)
        cachedState = built
        return built
    }
    /// The current state serialised (what `GET` answers), serialised when first asked for after a change:
    /// a command whose state nobody reads costs no serialisation.
    public var stateBytes: [UInt8] {
        if let cachedStateBytes { return cachedStateBytes }
        var bytes: [UInt8]
        if cachedState == nil, let fields = reported.objectValue {
            // NB: the versioned state's text without building the versioned state (see `versioned`), in room
            // for the last one's size so it does not regrow.
            bytes = []
            bytes.reserveCapacity(max(256, lastStateByteCount + 64))
            fields.serialize(into: &bytes, first: ("version", .int(version)))
        } else {
            bytes = state.serializedBytes
        }
        cachedStateBytes = bytes
        lastStateByteCount = bytes.count
        return bytes
    }
    /// How many patches are kept for resume.
    public let replayCapacity: Int
    /// The `retry:` value sent once per stream.
    public let retryMilliseconds: Int

    /// The state as the view model last reported it (without `version`), to skip changes that are not.
    private var reported: JSONValue
    private var replay: [(version: Int, patch: [UInt8])] = []
    private var replayStart = 0
    private var cachedSnapshotEvent: ServerSentEventChunk?
    private var cachedState: JSONValue?
    private var cachedStateBytes: [UInt8]?
    private var lastStateByteCount = 0
    private var observers: [ObjectIdentifier: any ChannelObserver] = [:]
    private var held: [HeldVersion] = []

    /// Creates a channel.
    /// - Parameters:
    ///   - name: the view model's name in multiplexed streams.
    ///   - initial: the state without `version`.
    ///   - replayCapacity: patches kept for resume.
    ///   - retryMilliseconds: the `retry:` value sent once per stream.
    ///   - version: the version of `initial` (1 for a new view model; the journal's for one taken over).
    public init(
        name: String, initial: JSONValue, version: Int = 1, replayCapacity: Int = 64, retryMilliseconds: Int = 3000
    ) {
        self.name = name
        self.version = version
        latestVersion = version
        self.replayCapacity = replayCapacity
        self.retryMilliseconds = retryMilliseconds
        // NB: a state from the journal carries its `version`; the view model's own never does.
        var unversioned = initial
        if var fields = initial.objectValue, fields.removeValue(forKey: "version") != nil {
            unversioned = .object(fields)
        }
        reported = unversioned
        cachedState = Self.versioned(initial, version: version)
    }

    /// Number of open streams on this channel.
    public var subscriberCount: Int { observers.count }

    /// Publishes a new state (without `version`); a no-op when nothing changed.
    ///
    /// - Parameter holdUntilCommitted: keep the new version from readers (`GET`, streams, resume) until
    ///   ``commit(through:)``: the journal calls it once the version is durable, so no client ever sees a
    ///   version a crash could lose.
    public func publish(_ newState: JSONValue, holdUntilCommitted: Bool = false) {
        // NB: one diff of the states as the view model reported them decides both whether anything changed
        // and what the patch is; `version` is the only field the channel adds.
        let operations = JSONPatch.diff(from: reported, to: newState)
        guard !operations.isEmpty else { return }
        // NB: `state` is built from `reported` when asked for: fix it before `reported` runs ahead of it.
        if holdUntilCommitted, cachedState == nil { cachedState = Self.versioned(reported, version: version) }
        reported = newState
        let nextVersion = latestVersion + 1
        // NB: the versioned state is built here only when needed now; otherwise `state` builds it on demand.
        var next: JSONValue?
        var patch: [UInt8] = []
        patch.reserveCapacity(256)
        if case .replace(let path, _) = operations.first, path.tokens.isEmpty {
            // The diff chose to replace the whole document: the replacement must carry the version.
            let whole = Self.versioned(newState, version: nextVersion)
            next = whole
            JSONPatch.serialize([.replace(path: JSONPointer(tokens: []), value: whole)], into: &patch)
        } else {
            // `version` first, then the diff, written without inserting into the operations.
            patch.append(UInt8(ascii: "["))
            JSONPatchOperation.replace(path: Self.versionPointer, value: .int(nextVersion)).serialize(into: &patch)
            for operation in operations {
                patch.append(UInt8(ascii: ","))
                operation.serialize(into: &patch)
            }
            patch.append(UInt8(ascii: "]"))
        }
        latestVersion = nextVersion
        if holdUntilCommitted {
            let state = next ?? Self.versioned(newState, version: nextVersion)
            held.append(
                HeldVersion(version: nextVersion, state: state, stateBytes: state.serializedBytes, patch: patch))
        } else {
            // NB: versions are committed in order: anything held before this one goes out first.
            commit(through: latestVersion - 1)
            apply(version: nextVersion, state: next, stateBytes: nil, patch: patch)
        }
    }

    /// The newest version published, committed or not.
    public private(set) var latestVersion: Int

    /// Versions published but not yet committed, oldest first, with their state and patch.
    public var heldVersions: [HeldVersion] { held }

    /// Makes every held version up to `version` visible: state, replay ring and subscribers, in order.
    public func commit(through version: Int) {
        guard !held.isEmpty else { return }
        var count = 0
        for entry in held where entry.version <= version {
            apply(version: entry.version, state: entry.state, stateBytes: entry.stateBytes, patch: entry.patch)
            count += 1
        }
        held.removeFirst(count)
    }

    /// Makes `newVersion` current; `next` and `nextBytes`, when nil, are built from `reported` on demand.
    private func apply(version newVersion: Int, state next: JSONValue?, stateBytes nextBytes: [UInt8]?, patch: [UInt8])
    {
        version = newVersion
        cachedState = next
        cachedStateBytes = nextBytes
        cachedSnapshotEvent = nil
        remember(version: newVersion, patch: patch)
        guard !observers.isEmpty else { return }
        let event = ServerSentEventChunk(ServerSentEventFrame.event("patch", id: "\(newVersion)", data: patch))
        for observer in observers.values {
            observer.channel(self, published: newVersion, patch: patch, patchEvent: event)
        }
    }

    /// Attaches a stream: sends `retry`, then either the patches after `lastEventID` (when still in the
    /// ring) or a snapshot, then every later change.
    public func subscribe(_ sink: any EventSink, format: StreamFormat, lastEventID: Int?) {
        Subscriber.start(sink, channel: self, format: format, lastEventID: lastEventID)
    }

    /// Registers an observer for as long as `sink` stays open.
    func attach(_ observer: any ChannelObserver, to sink: any EventSink) {
        let key = ObjectIdentifier(observer)
        observers[key] = observer
        let previous = sink.onClose
        sink.onClose = { [weak self] in
            self?.observers[key] = nil
            previous?()
        }
    }

    /// Ends every stream of this channel (session deleted or expired, server shutting down); whatever is held
    /// is committed first, so waiting requests answer.
    public func close() {
        commit(through: latestVersion)
        endStreams()
    }

    /// Drops the versions still held and ends every stream: another process owns the view model now, and
    /// what was held never reached its journal, so no client may see it.
    public func abandon() {
        if !held.isEmpty, var fields = state.objectValue {
            // NB: later diffs start from what readers have, not from the versions dropped.
            fields.removeValue(forKey: "version")
            reported = .object(fields)
        }
        held.removeAll()
        latestVersion = version
        endStreams()
    }

    private func endStreams() {
        let current = observers.values
        observers.removeAll()
        for observer in current { observer.channelClosed(self) }
    }

    /// The current state as a framed `snapshot` event, built at most once per version.
    var snapshotEvent: ServerSentEventChunk {
        if let cachedSnapshotEvent { return cachedSnapshotEvent }
        let event = ServerSentEventChunk(ServerSentEventFrame.event("snapshot", id: "\(version)", data: stateBytes))
        cachedSnapshotEvent = event
        return event
    }

    // MARK: Replay ring

    private func remember(version: Int, patch: [UInt8]) {
        guard replayCapacity > 0 else { return }
        if replay.count < replayCapacity {
            replay.append((version, patch))
        } else {
            replay[replayStart] = (version, patch)
            replayStart = (replayStart + 1) % replayCapacity
        }
    }

    /// The replay ring, oldest first (for the journal's full write).
    public var replayedPatches: [(version: Int, patch: [UInt8])] {
        let count = replay.count
        return (0..<count).map { replay[(replayStart + $0) % count] }
    }

    /// Fills the replay ring from the journal, oldest first; entries not directly before ``version`` are ignored.
    public func restoreReplay(_ entries: [(version: Int, patch: [UInt8])]) {
        // The run of consecutive versions that ends at the current one: a patch is only useful to a client
        // when every later one is there too.
        var run: [(version: Int, patch: [UInt8])] = []
        var expected = version
        for entry in entries.reversed() where entry.version == expected && run.count < replayCapacity {
            run.append(entry)
            expected -= 1
        }
        for entry in run.reversed() { remember(version: entry.version, patch: entry.patch) }
    }

    /// The patches after `lastEventID` in order, or nil when the ring no longer covers them (or the id is
    /// from the future, e.g. another server's).
    func patches(after lastEventID: Int) -> [(version: Int, patch: [UInt8])]? {
        if lastEventID == version { return [] }
        guard lastEventID < version, lastEventID >= 1 else { return nil }
        let count = replay.count
        guard count > 0 else { return nil }
        let oldest = replay[replayStart % count].version
        guard lastEventID + 1 >= oldest else { return nil }
        let skip = lastEventID + 1 - oldest
        return (skip..<count).map { replay[(replayStart + $0) % count] }
    }

    // MARK: State

    /// `/version`.
    private static let versionPointer = JSONPointer(tokens: ["version"])

    static func versioned(_ state: JSONValue, version: Int) -> JSONValue {
        var object = JSONObject()
        object["version"] = .int(version)
        if let fields = state.objectValue {
            for (key, value) in fields where key != "version" { object[key] = value }
        }
        return .object(object)
    }
}
