import EventLoop
import EventStreams
import JSON
import JSONPatch
import ViewModels

/// A version published but held back until the journal has it.
///
/// NB: its state is not serialised when it is published, only when asked for (a checkpoint's journal write; a
/// reader once it is committed, as for any version). Text made at every publish lived until Redis answered,
/// one buffer per command in flight, each written to memory gone cold: last-level write misses fell from 18.2
/// to 15.2 a command without it (callgrind, 1,000 sessions; docs/performance.md, issue 26's fourteenth stop).
/// A version's state is still serialised once: by the command's answer, once committed.
public struct HeldVersion {
    /// Its number.
    public var version: Int
    /// Builds its state.
    let renderer: any StateRenderer
    /// The RFC 6902 patch from the version before, serialised.
    public var patch: [UInt8]

    /// Its state, with `version` (built when asked for).
    @LoopActor public var state: JSONValue { StateChannel.versioned(renderer.json(), version: version) }

    /// Its state serialised, with `version` (serialised when asked for).
    @LoopActor public var stateBytes: [UInt8] {
        var bytes: [UInt8] = []
        renderer.serialize(version: version, into: &bytes, keepingText: false)
        return bytes
    }
}

/// How a subscriber wants changes.
public enum StreamFormat: Sendable, Equatable {
    /// A snapshot first, then RFC 6902 patches.
    case patches
    /// Every change as a full snapshot (`?format=snapshot`).
    case snapshots
}

/// A state held as a JSON tree: a journal's, before the view model first publishes, and a channel fed trees.
final class JSONTreeRenderer: StateRenderer {
    private let tree: JSONValue

    init(_ tree: JSONValue) {
        self.tree = tree
    }

    func json() -> JSONValue { tree }

    func serialize(version: Int, into buffer: inout [UInt8], keepingText: Bool) {
        if case .object(let fields) = tree {
            // The versioned state's text without building the versioned state.
            fields.serialize(into: &buffer, first: ("version", .int(version)))
        } else {
            StateChannel.versioned(tree, version: version).serialize(into: &buffer)
        }
    }
}

/// The state of one view model as a versioned stream of events.
///
/// Each change is diffed and framed as SSE bytes **once**, and those same bytes are written to every
/// subscriber; a bounded ring of recent patches serves `Last-Event-ID` resume. Slow readers are
/// resynchronised with a snapshot when their connection drains.
///
/// The channel keeps no JSON tree of the state between versions: a ``StateRenderer`` builds it when
/// needed (a view model's typed state is far smaller than its JSON tree), and the serialised state is kept
/// only once read twice in one version, so an idle session holds its typed state and recent patches only.
///
/// Which version readers see, what is held until the journal has it and what the replay ring keeps are
/// decided by ``StateChannel/StateMachine`` (`StateChannel+StateMachine.swift`); this class diffs,
/// serialises and tells subscribers.
@LoopActor
public final class StateChannel {
    /// The view model's name in multiplexed streams (`search`, `products`).
    public let name: String
    /// `[name]`, what a stream of this channel alone writes: made once, when a stream first subscribes, and
    /// shared by the channel's streams instead of an array each (48 bytes per stream).
    private(set) lazy var parts = [name]
    /// The version of the current state; starts at 1 and increases with every change.
    public var version: Int { machine.version }
    /// The current state, including `version` (built on each call: the channel keeps no tree of it).
    public var state: JSONValue {
        // NB: without held versions, the newest renderer builds the state of `version`.
        Self.versioned(machine.visibleRenderer.json(), version: version)
    }
    /// The current state serialised (what `GET` answers). Serialised when asked for, and kept from the
    /// second read of a version on: a state read once per version (the answer to the command that made it)
    /// costs no memory while the session is idle, one read over and over (polling) is serialised once.
    public var stateBytes: [UInt8] {
        if let cachedStateBytes { return cachedStateBytes }
        // NB: no kept text for a pinned renderer: it is not the newest, whose text the renderers share.
        let bytes: [UInt8]
        if let pinned = machine.pinned {
            bytes = text(of: pinned, version: version, keepingText: false)
        } else {
            bytes = text(of: machine.render, version: version, keepingText: !observers.isEmpty)
        }
        if readsOfVersion > 0 { cachedStateBytes = bytes }
        readsOfVersion += 1
        return bytes
    }
    /// How many patches are kept for resume.
    public var replayCapacity: Int { machine.replayCapacity }
    /// How many bytes of patches are kept for resume: beyond that, a resuming client gets a snapshot.
    public var replayByteLimit: Int { machine.replayByteLimit }
    /// The `retry:` value sent once per stream.
    public let retryMilliseconds: Int

    /// Versions, held versions and the replay ring.
    private var machine: StateMachine
    private var cachedSnapshotEvent: ServerSentEventChunk?
    private var cachedStateBytes: [UInt8]?
    private var readsOfVersion = 0
    /// The size of the state's JSON text when last serialised (what buffers for it reserve).
    public private(set) var lastStateByteCount = 0
    private var observers: [ObjectIdentifier: any ChannelObserver] = [:]

    /// Creates a channel whose state at `version` is the one `renderer` builds.
    /// - Parameters:
    ///   - name: the view model's name in multiplexed streams.
    ///   - renderer: builds the state of `version`.
    ///   - version: 1 for a new view model.
    ///   - replay: what the replay ring keeps for resume.
    ///   - retryMilliseconds: the `retry:` value sent once per stream.
    public init(
        name: String, renderer: any StateRenderer, version: Int = 1, replay: ReplayLimits = ReplayLimits(),
        retryMilliseconds: Int = 3000
    ) {
        self.name = name
        machine = StateMachine(renderer: renderer, version: version, replay: replay)
        self.retryMilliseconds = retryMilliseconds
    }

    /// Creates a channel whose state at `version` is `initial`, kept as a tree (a journal's state, or a
    /// channel fed trees).
    /// - Parameters:
    ///   - initial: the state; a `version` member in it (a journal's state carries one) is dropped.
    ///   - version: the version of `initial` (1 for a new view model; the journal's for one taken over).
    public convenience init(
        name: String, initial: JSONValue, version: Int = 1, replay: ReplayLimits = ReplayLimits(),
        retryMilliseconds: Int = 3000
    ) {
        self.init(
            name: name, renderer: JSONTreeRenderer(Self.unversioned(initial)), version: version, replay: replay,
            retryMilliseconds: retryMilliseconds)
    }

    /// Number of open streams on this channel.
    public var subscriberCount: Int { observers.count }

    /// Publishes a new state (without `version`); a no-op when nothing changed.
    ///
    /// - Parameters:
    ///   - renderer: builds `newState` again when needed; without it the channel keeps `newState`.
    ///   - holdUntilCommitted: keep the new version from readers (`GET`, streams, resume) until
    ///     ``commit(through:)``: the journal calls it once the version is durable, so no client ever sees a
    ///     version a crash could lose.
    public func publish(
        _ newState: JSONValue, renderer: (any StateRenderer)? = nil, holdUntilCommitted: Bool = false
    ) {
        // NB: one diff of the states as the view model reported them decides both whether anything changed
        // and what the patch is; `version` is the only field the channel adds.
        let operations = JSONPatch.diff(from: machine.render.json(), to: newState)
        publish(operations, renderer: renderer ?? JSONTreeRenderer(newState), holdUntilCommitted: holdUntilCommitted)
    }

    /// Publishes a change given as the operations from the last published state (without `version`) to the
    /// one `renderer` builds; a no-op when there are none.
    ///
    /// A view model's host diffs its typed state (``JSONPatch/diff(changedMembers:whole:)``) and passes the
    /// result here, so no JSON tree of the whole state is built for a change.
    public func publish(
        _ operations: [JSONPatchOperation], renderer: any StateRenderer, holdUntilCommitted: Bool = false
    ) {
        guard !operations.isEmpty else {
            // Same state: keep whichever renderer is cheaper to hold (a typed state's, not a tree).
            machine.unchanged(renderer: renderer)
            return
        }
        let nextVersion = machine.nextVersion
        var patch: [UInt8] = []
        patch.reserveCapacity(256)
        if case .replace(let path, let whole) = operations.first, path.tokens.isEmpty {
            // The diff chose to replace the whole document: the replacement must carry the version.
            let versioned = Self.versioned(whole, version: nextVersion)
            JSONPatch.serialize([.replace(path: JSONPointer(tokens: []), value: versioned)], into: &patch)
        } else {
            // `version` first, then the diff, written without inserting into the operations. NB: the `version`
            // operation's constant part as bytes, not an operation built and serialised for every change.
            patch.append(contentsOf: Self.versionOperationHead)
            JSONValue.int(nextVersion).serialize(into: &patch)
            patch.append(UInt8(ascii: "}"))
            for operation in operations {
                patch.append(UInt8(ascii: ","))
                operation.serialize(into: &patch)
            }
            patch.append(UInt8(ascii: "]"))
        }
        switch machine.publish(renderer: renderer, patch: patch, holding: holdUntilCommitted) {
        case .none: break
        case .showVisibleVersions: showVisibleVersions()
        }
    }

    /// The newest version published, committed or not.
    public var latestVersion: Int { machine.latestVersion }

    /// Versions published but not yet committed, oldest first, with their state and patch.
    public var heldVersions: [HeldVersion] { machine.held }

    /// Makes every held version up to `version` visible: state, replay ring and subscribers, in order.
    public func commit(through version: Int) {
        guard !machine.held.isEmpty else { return }
        switch machine.commit(through: version) {
        case .none: break
        case .showVisibleVersions: showVisibleVersions()
        }
    }

    /// Tells subscribers of each version the machine makes visible, in order, each current as it is told.
    private func showVisibleVersions() {
        while let visible = machine.nextVisible() {
            cachedStateBytes = nil
            readsOfVersion = 0
            cachedSnapshotEvent = nil
            guard !observers.isEmpty else { continue }
            let event = ServerSentEventChunk(
                ServerSentEventFrame.event("patch", id: visible.version, data: visible.patch))
            for observer in observers.values {
                observer.channel(self, published: visible.version, patch: visible.patch, patchEvent: event)
            }
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
        machine.abandon()
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
        let event = ServerSentEventChunk(ServerSentEventFrame.event("snapshot", id: version, data: stateBytes))
        cachedSnapshotEvent = event
        return event
    }

    // MARK: Replay ring

    /// The replay ring, oldest first (for the journal's full write).
    public var replayedPatches: [(version: Int, patch: [UInt8])] { machine.replay }
    /// The number of patches in the replay ring (without a copy of it).
    public var replayedPatchCount: Int { machine.replay.count }
    /// The bytes of the replay ring's patches.
    public var replayedByteCount: Int { machine.replayBytes }

    /// Fills the replay ring from the journal, oldest first; entries not directly before ``version`` are ignored.
    public func restoreReplay(_ entries: [(version: Int, patch: [UInt8])]) {
        machine.restoreReplay(entries)
    }

    /// The patches after `lastEventID` in order, or nil when the ring no longer covers them (or the id is
    /// from the future, e.g. another server's).
    func patches(after lastEventID: Int) -> [(version: Int, patch: [UInt8])]? {
        machine.patches(after: lastEventID)
    }

    // MARK: State

    /// The JSON text of the state `renderer` builds, with `version` first.
    private func text(of renderer: any StateRenderer, version: Int, keepingText: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        // NB: in room for the last one's size, so it does not regrow.
        bytes.reserveCapacity(max(256, lastStateByteCount + 64))
        renderer.serialize(version: version, into: &bytes, keepingText: keepingText)
        lastStateByteCount = bytes.count
        return bytes
    }

    /// The start of a patch up to the `version` operation's value (`JSONPatchOperation`'s serialisation of
    /// `replace /version`).
    /// NB: taken from the operation's own serialisation (its value, `0`, and the closing brace dropped), so the
    /// format has one source.
    private static let versionOperationHead: [UInt8] = {
        var bytes = [UInt8(ascii: "[")]
        JSONPatchOperation.replace(path: JSONPointer(tokens: ["version"]), value: .int(0)).serialize(into: &bytes)
        return Array(bytes.dropLast(2))
    }()

    /// `state` without its `version` member, if it has one.
    static func unversioned(_ state: JSONValue) -> JSONValue {
        guard var fields = state.objectValue, fields.removeValue(forKey: "version") != nil else { return state }
        return .object(fields)
    }

    static func versioned(_ state: JSONValue, version: Int) -> JSONValue {
        var object = JSONObject()
        object["version"] = .int(version)
        if let fields = state.objectValue {
            for (key, value) in fields where key != "version" { object[key] = value }
        }
        return .object(object)
    }
}
