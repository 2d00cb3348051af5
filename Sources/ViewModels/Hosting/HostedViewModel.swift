import EventLoop
import JSON

/// A view model that a session hosts: what every screen has in common, so that sessions, routes, streams,
/// the journal and the fuzzer handle each of them the same way.
///
/// Adopting it is what makes a view model reachable over HTTP: ``name`` is its path segment and its name in
/// multiplexed streams, ``commands`` its `POST` routes, its ``State``'s JSON what `GET` and the streams show.
/// A view model reports every change of its state through ``onChange``; the host publishes one version per
/// command however many fields the command changed, and one per completion of asynchronous work.
@LoopActor
public protocol HostedViewModel: AnyObject, SendableMetatype {
    /// The state type: its typed parts are compared to find what a change touched.
    associatedtype State: ViewModelState

    /// The name in paths (`/v1/sessions/{id}/{name}`), in multiplexed events (`{name}.patch`) and in
    /// resume ids (`{name}:{version}`).
    nonisolated static var name: String { get }
    /// The commands, each `POST /v1/sessions/{id}/{name}/{command}`.
    nonisolated static var commands: [ViewModelCommand<Self>] { get }

    /// The current state.
    var state: State { get }
    /// Called after every change of ``state``.
    var onChange: (@LoopActor (State) -> Void)? { get set }

    /// Whether work is in flight (a load, a pending debounce).
    var isBusy: Bool { get }

    /// The session's budget of upstream loads, which the commands that start one draw from (nil: none).
    var upstreamBudget: UpstreamBudget? { get set }

    /// A tracker of the state for a host (given by an extension; a requirement so that each view model's
    /// conformance carries one specialised for its state type).
    func makeStateTracker() -> StateTracker

    /// Writes everything needed to continue this view model elsewhere: its whole state (more than
    /// ``stateJSON`` shows) and what was in flight, as the JSON text the journal stores. NB: written as text
    /// rather than built as a ``JSONValue``: the journal writes it on every change.
    func writeSnapshot(to json: inout JSONTextWriter)
    /// Continues from a snapshot (``writeSnapshot(to:)``) written by this or another process. Work that was in
    /// flight there is started again here, so nothing stays loading.
    /// - Throws: ``SnapshotError`` when the snapshot is not one this view model wrote.
    func restore(_ snapshot: JSONValue) throws(SnapshotError)

    /// Writes what continuing needs beyond the state's JSON (``stateJSON``): what was in flight, the status
    /// and failure of each load, and what the JSON shows only in part. The journal keeps these "extras" beside
    /// the log of the state's patches, and writes them only when they change: most commands change the state
    /// alone. NB: small, and written as text: the journal writes them on every change to compare, unless
    /// ``extrasRevision`` says they are the same.
    func writeExtras(to json: inout JSONTextWriter)
    /// A number that changes whenever ``writeExtras(to:)`` would write something else (it may change more often),
    /// or nil when the view model keeps none: the journal then writes and compares the extras on every change.
    /// NB: the journal skips writing the extras while it is the one they were last written with (typing changes
    /// the state alone: ~0.8k instructions a command).
    var extrasRevision: Int? { get }
    /// The snapshot (``writeSnapshot(to:)``'s JSON) of the view model whose state's JSON was `state` (with or
    /// without `version`) and whose extras (``writeExtras(to:)``) were `extras`.
    /// - Throws: ``SnapshotError`` when either is not one this view model wrote.
    nonisolated static func snapshot(state: JSONValue, extras: JSONValue) throws(SnapshotError) -> JSONValue

    /// Cancels all work; the session is going away.
    func shutdown()
}

extension HostedViewModel {
    /// The API's JSON of the state, without `version` (the state channel adds it).
    public var stateJSON: JSONValue { state.json }

    /// None by default: the extras are written and compared on every change.
    public var extrasRevision: Int? { nil }

    /// The text of ``writeSnapshot(to:)`` on its own.
    public var snapshotText: [UInt8] {
        var json = JSONTextWriter()
        writeSnapshot(to: &json)
        return json.take()
    }

    /// The text of ``writeExtras(to:)`` on its own.
    public var extrasText: [UInt8] {
        var json = JSONTextWriter()
        writeExtras(to: &json)
        return json.take()
    }

    /// Continues from the state's JSON and the extras (``writeExtras(to:)``) of this or another process, as
    /// ``restore(_:)`` does from the snapshot they make (``snapshot(state:extras:)``).
    public func restore(state: JSONValue, extras: JSONValue) throws(SnapshotError) {
        try restore(Self.snapshot(state: state, extras: extras))
    }
}

/// A snapshot that cannot be restored (corrupt, or written by an incompatible version).
public struct SnapshotError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, with the path of the offending field.
    public var description: String

    /// Creates the error.
    public init(_ description: String) {
        self.description = description
    }
}
