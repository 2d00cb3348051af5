import EventLoop
import JSON
import JSONPatch
import ViewModels

/// One hosted view model of a session with its state channel.
///
/// The slot is where "one version per command" is decided: changes a command makes are published once when
/// the command returns; changes outside a command (a load completing) are published as they happen.
@LoopActor
public final class ViewModelSlot {
    /// The view model's name (`search`, `products`, `photo`).
    public let name: String
    /// The view model.
    public let model: any HostedViewModel
    /// Its versioned state stream.
    public let channel: StateChannel
    /// Its commands by path segment.
    let registration: ViewModelRegistration

    /// Asked before each publish whether the new version waits for the journal (set by the session).
    var holdsVersions: (@LoopActor () -> Bool)?
    /// Publishes the model's typed state to the channel.
    private let publisher: any StatePublishing

    private var commandDepth = 0
    private var changedDuringCommand = false
    private var isClosed = false

    /// Hosts `model`, built from `registration`, at version 1 (or `version` when continuing a journal).
    /// - Parameter state: the state at `version` (the journal's when continuing one; the model's otherwise).
    init<Model: HostedViewModel>(
        _ model: Model, registration: ViewModelRegistration, replay: ReplayLimits, version: Int = 1,
        state: JSONValue? = nil
    ) {
        name = registration.name
        self.model = model
        self.registration = registration
        if let state {
            // The journal's state: the first publish diffs the model's against it (``publishIfChanged()``).
            channel = StateChannel(name: name, initial: state, version: version, replay: replay)
            publisher = TypedStatePublisher(model, published: nil)
        } else {
            let typed = TypedStatePublisher(model, published: model.state)
            channel = StateChannel(
                name: name, initial: model.stateJSON, renderer: typed.renderer(), version: version, replay: replay)
            publisher = typed
        }
        model.onChange = { [weak self] _ in self?.changed() }
    }

    /// Builds the slot of `registration`'s view model (its type is known only inside the registration).
    static func make(_ registration: ViewModelRegistration, replay: ReplayLimits) -> ViewModelSlot {
        open(registration.make(), registration: registration, replay: replay, version: 1)
    }

    /// Opens the existential so the slot can wire the typed `onChange`.
    static func open(
        _ model: some HostedViewModel, registration: ViewModelRegistration, replay: ReplayLimits, version: Int,
        state: JSONValue? = nil
    ) -> ViewModelSlot {
        ViewModelSlot(model, registration: registration, replay: replay, version: version, state: state)
    }

    /// Continues a view model from its journal entry: the model restores its snapshot (restarting work that
    /// was in flight), the channel resumes at the journal's version and replay ring, and any difference
    /// between the journal's state and the restored model's becomes the next version.
    static func restore(
        _ entry: SessionRecord.ViewModel, registration: ViewModelRegistration, replay: ReplayLimits
    ) throws(SnapshotError) -> ViewModelSlot {
        let model = registration.make()
        try model.restore(entry.snapshot)
        let slot = open(
            model, registration: registration, replay: replay, version: entry.version,
            state: entry.state
        )
        slot.channel.restoreReplay(entry.replay)
        return slot
    }

    /// Publishes the model's state if it differs from the channel's (after a restore).
    func publishIfChanged() {
        publish()
    }

    /// Runs a decoded command; everything it changes becomes one version.
    public func perform(
        _ action: ViewModelRegistration.Command.Action
    ) throws(CommandRejection) -> CommandReply {
        commandDepth += 1
        defer {
            commandDepth -= 1
            if commandDepth == 0 && changedDuringCommand {
                changedDuringCommand = false
                publish()
            }
        }
        return try action(model)
    }

    /// Cancels the view model's work and ends its streams.
    /// - Parameter abandoning: drop held versions instead of committing them (the session was lost to
    ///   another process).
    func close(abandoning: Bool = false) {
        guard !isClosed else { return }
        isClosed = true
        model.shutdown()
        if abandoning { channel.abandon() } else { channel.close() }
    }

    private func changed() {
        guard !isClosed else { return }
        if commandDepth > 0 {
            changedDuringCommand = true
        } else {
            publish()
        }
    }

    private func publish() {
        publisher.publish(to: channel, holdUntilCommitted: holdsVersions?() ?? false)
    }
}

/// Publishes a view model's state to its channel: the slot's link to the model's typed state.
@LoopActor
private protocol StatePublishing {
    func publish(to channel: StateChannel, holdUntilCommitted: Bool)
}

/// Keeps the state last published (a typed value sharing its storage with the model's) and diffs the model's
/// current state against it member by member: only the members a change touched are built as JSON.
@LoopActor
private final class TypedStatePublisher<Model: HostedViewModel>: StatePublishing {
    // NB: the slot owns both the model and this publisher.
    unowned let model: Model
    /// The state of the channel's latest version; nil while that is the journal's JSON (before the first
    /// publish of a restored model).
    private var published: Model.State?
    /// The member text of `published`, kept while the channel has streams.
    private let text = TypedStateRenderer<Model.State>.Text()

    init(_ model: Model, published: Model.State?) {
        self.model = model
        self.published = published
    }

    /// The renderer of the latest version.
    func renderer() -> TypedStateRenderer<Model.State> {
        TypedStateRenderer(published ?? model.state, text: text)
    }

    func publish(to channel: StateChannel, holdUntilCommitted: Bool) {
        let current = model.state
        if let published {
            let changes = current.changedMembers(from: published)
            guard !changes.isEmpty else { return }
            let operations = JSONPatch.diff(changedMembers: changes.map { ($0.key, $0.old, $0.new) }) { current.json }
            // NB: parts that differ but show the same JSON are no version (and no new renderer).
            guard !operations.isEmpty else { return }
            for change in changes { text.value.invalidate(change.index) }
            self.published = current
            channel.publish(
                operations, renderer: TypedStateRenderer(current, text: text), holdUntilCommitted: holdUntilCommitted)
        } else {
            text.value.invalidateAll()
            published = current
            channel.publish(
                current.json, renderer: TypedStateRenderer(current, text: text), holdUntilCommitted: holdUntilCommitted)
        }
    }
}

/// Renders one published state of a typed view model. The member text it keeps is shared with the renderers of
/// later versions: it always belongs to the newest, the only one the channel asks for text.
@LoopActor
private final class TypedStateRenderer<State: ViewModelState>: StateRenderer {
    /// The member text of the newest published state.
    final class Text {
        var value = StateText<State>()
    }

    private let state: State
    private let text: Text

    init(_ state: State, text: Text) {
        self.state = state
        self.text = text
    }

    func json() -> JSONValue { state.json }

    func serialize(version: Int, into buffer: inout [UInt8], keepingText: Bool) {
        text.value.serialize(state, first: ("version", .int(version)), into: &buffer, keeping: keepingText)
    }
}
