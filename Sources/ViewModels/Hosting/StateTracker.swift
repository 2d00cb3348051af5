import EventLoop
import JSON
import JSONPatch

/// Renders one published state of a view model when its host needs it: its JSON text for `GET`, a command's
/// answer and snapshot events, its JSON tree for a held version and the session resource.
@LoopActor
public protocol StateRenderer: AnyObject {
    /// The state, without `version`.
    func json() -> JSONValue
    /// Appends the state's JSON text with `version` as its first member.
    /// - Parameter keepingText: the state is read at every version (the view model has open streams): the
    ///   renderer may keep text between versions to serialise less; when false it should keep none.
    func serialize(version: Int, into buffer: inout [UInt8], keepingText: Bool)
}

/// Follows a view model's typed state between the versions its host publishes: what changed since the last
/// one, as patch operations, and a renderer for each new state.
///
/// Built by ``HostedViewModel/makeStateTracker()`` inside the view model's own module, where its state type is
/// concrete: the comparisons, JSON building and serialisation behind these closures run specialised for it,
/// while the host (sessions, channels) stays free of generics over view models.
@LoopActor
public final class StateTracker {
    /// The change since the state last published: its operations and the new state's renderer; nil when no
    /// member's JSON changed. The new state becomes the one last published.
    public let nextChange: @LoopActor () -> (operations: [JSONPatchOperation], renderer: any StateRenderer)?
    /// The model's current state, whole, with its renderer; it becomes the one last published (a restored model,
    /// whose host holds the journal's JSON to diff it against).
    public let restart: @LoopActor () -> (json: JSONValue, renderer: any StateRenderer)
    /// The renderer of the state last published.
    public let currentRenderer: @LoopActor () -> any StateRenderer

    init(
        nextChange: @escaping @LoopActor () -> (operations: [JSONPatchOperation], renderer: any StateRenderer)?,
        restart: @escaping @LoopActor () -> (json: JSONValue, renderer: any StateRenderer),
        currentRenderer: @escaping @LoopActor () -> any StateRenderer
    ) {
        self.nextChange = nextChange
        self.restart = restart
        self.currentRenderer = currentRenderer
    }
}

extension HostedViewModel {
    /// A tracker of this view model's state, starting from its current state.
    public func makeStateTracker() -> StateTracker {
        let tracked = TrackedState(state)
        return StateTracker(
            nextChange: { [unowned self] in
                let current = state
                let changes = current.changedMembers(from: tracked.published)
                guard !changes.indexes.isEmpty else { return nil }
                let operations = JSONPatch.diff(changedMembers: changes.members) { current.json }
                // NB: parts that differ but show the same JSON are no version.
                guard !operations.isEmpty else { return nil }
                for index in changes.indexes { tracked.text.invalidate(index) }
                tracked.published = current
                return (operations, tracked.renderer())
            },
            restart: { [unowned self] in
                tracked.text.invalidateAll()
                tracked.published = state
                return (tracked.published.json, tracked.renderer())
            },
            currentRenderer: { tracked.renderer() }
        )
    }
}

/// The state last published and its members' text.
///
/// NB: used on the loop only (its owner is a `@LoopActor` tracker); not isolated itself so that the renderers'
/// closures need no executor check on every call.
final class TrackedState<State: ViewModelState>: @unchecked Sendable {
    var published: State
    /// The member text of `published`, kept while its host has streams.
    var text = StateText<State>()

    init(_ published: State) {
        self.published = published
    }

    /// The renderer of `published`. Its closures are built here, where `State` is concrete, so they run
    /// specialised; the renderer itself is not generic, so calls through `any StateRenderer` reach them directly.
    /// The member text stays shared with later versions' renderers: it belongs to the newest, the only one a
    /// host asks for text.
    func renderer() -> any StateRenderer {
        let state = published
        return ClosureStateRenderer(
            json: { state.json },
            serialize: { [self] version, buffer, keeping in
                text.serialize(state, first: ("version", .int(version)), into: &buffer, keeping: keeping)
            })
    }
}

/// A renderer made of two closures.
@LoopActor
final class ClosureStateRenderer: StateRenderer {
    private let renderJSON: @Sendable () -> JSONValue
    private let renderText: @Sendable (Int, inout [UInt8], Bool) -> Void

    nonisolated init(
        json: @escaping @Sendable () -> JSONValue, serialize: @escaping @Sendable (Int, inout [UInt8], Bool) -> Void
    ) {
        renderJSON = json
        renderText = serialize
    }

    func json() -> JSONValue { renderJSON() }

    func serialize(version: Int, into buffer: inout [UInt8], keepingText: Bool) {
        renderText(version, &buffer, keepingText)
    }
}
