import EventLoop
import JSON
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

    /// The newest version a journal write of this view model carried (0: none yet; a slot restored from the
    /// journal starts at the journal's version). Kept by the journal: a write sends the versions after it.
    public var journaledVersion = 0
    /// The journal's keys of this view model (its replay list, then its snapshot delta), encoded as it sends
    /// them (kept by the journal).
    public var journalKeys: [UInt8] = []
    /// The length of this view model's replay list in Redis as the journal last learnt it, or a bound on it
    /// (0: not known to exist under the session's epoch; kept by the journal).
    public var journalListLength = 0
    /// The bytes of the patches in that list as the journal last learnt them, or about them (0 with an unknown
    /// list; kept by the journal: a list is cut back once it holds enough more than it keeps).
    public var journalListBytes = 0
    /// The journal's checkpoint of this view model (nil: none known to this process, so its next write is one).
    public var journalMark: JournalMark?
    /// The text of this view model's extras (``HostedViewModel/writeExtras(to:)``) as the journal last wrote
    /// them (kept by the journal: a write sends them only when they changed).
    public var journalExtras: [UInt8] = []
    /// The view model's ``HostedViewModel/extrasRevision`` when the journal last wrote ``journalExtras`` (nil:
    /// none, or the view model keeps no revision).
    public var journalExtrasRevision: Int?
    /// Asked before each publish whether the new version waits for the journal: the session, once attached to
    /// one, which then learns that this slot (``holderBit``) changed.
    /// NB: unowned (the session owns its slots and takes this back when it goes), and the session itself, not a
    /// closure: a closure's context was an allocation of its own, read on every publish (~2 last-level cache
    /// misses a command at 1,000 sessions; docs/performance.md, issue 26's fourteenth stop).
    unowned var versionHolder: (any VersionHolder)?
    /// This slot's bit in its session's changed slots (``Session/slotsWithChanges``).
    var holderBit: UInt64 = 0
    /// Follows the model's typed state between versions.
    private let tracker: StateTracker
    /// Whether the channel's latest version is the journal's JSON rather than a state `tracker` published.
    private var startsFromJournal: Bool

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
        tracker = model.makeStateTracker()
        if let state {
            // The journal's state: the first publish diffs the model's against it (``publishIfChanged()``).
            channel = StateChannel(name: name, initial: state, version: version, replay: replay)
            startsFromJournal = true
        } else {
            channel = StateChannel(name: name, renderer: tracker.currentRenderer(), version: version, replay: replay)
            startsFromJournal = false
        }
        // NB: unowned, not weak: a weak reference gives the slot a side table, which every retain of it then
        // goes through. The slot takes the callback back when it goes (deinit): a task of the model may
        // hold the model a little longer.
        model.onChange = { [unowned self] _ in self.changed() }
    }

    isolated deinit {
        Self.takeCallbackBack(from: model)
    }

    /// Opens the existential: `onChange` takes the model's own state type.
    private static func takeCallbackBack(from model: some HostedViewModel) {
        model.onChange = nil
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

    /// Continues a view model from its journal entry: the model restores its snapshot, or its state and extras
    /// (restarting work that was in flight), the channel resumes at the journal's version and replay ring, and
    /// any difference between the journal's state and the restored model's becomes the next version.
    static func restore(
        _ entry: SessionRecord.ViewModel, registration: ViewModelRegistration, replay: ReplayLimits
    ) throws(SnapshotError) -> ViewModelSlot {
        let model = registration.make()
        switch entry.continuation {
        case .extras(let extras): try model.restore(state: entry.state, extras: extras)
        case .snapshot(let snapshot): try model.restore(snapshot)
        }
        let slot = open(
            model, registration: registration, replay: replay, version: entry.version,
            state: entry.state
        )
        slot.channel.restoreReplay(entry.replay)
        slot.journaledVersion = entry.version
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

    /// Makes the versions held through ``journaledVersion`` visible: the journal has them.
    /// NB: the channel reached from here, not by the journal: a caller's `slot.channel.commit(…)` retained the
    /// channel, and a channel has a side table (its streams hold it weakly), so each such retain went through
    /// it (a cache miss of its own, once a command; docs/performance.md, issue 26's fourteenth stop).
    public func commitJournaledVersions() {
        channel.commit(through: journaledVersion)
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
        let hold = versionHolder?.slotPublishes(holderBit) ?? false
        if startsFromJournal {
            startsFromJournal = false
            let (json, renderer) = tracker.restart()
            channel.publish(json, renderer: renderer, holdUntilCommitted: hold)
        } else if let (operations, renderer) = tracker.nextChange() {
            channel.publish(operations, renderer: renderer, holdUntilCommitted: hold)
        }
    }
}

/// Who a slot asks before each publish whether the new version waits for the journal (its session).
@LoopActor
protocol VersionHolder: AnyObject {
    /// The slot whose bit is `bit` publishes a version: whether the version waits for the journal.
    func slotPublishes(_ bit: UInt64) -> Bool
}
