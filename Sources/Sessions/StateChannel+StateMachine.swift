import ViewModels

extension StateChannel {
    /// Which version of a channel readers see, what is held back until the journal has it, and the replay
    /// ring of recent patches: every decision of ``StateChannel`` about versions, as a value with no I/O.
    ///
    /// The channel diffs and serialises, and tells its subscribers; this machine says what becomes visible
    /// and when. A change is published held (``publish(renderer:patch:holding:)`` with `holding`) or shown
    /// at once; a shown change, and ``commit(through:)``, answer ``Action/showVisibleVersions``: the channel
    /// then calls ``nextVisible()`` until it answers nil, telling subscribers of each version in order (a
    /// subscriber may read the channel's state at each, so each is current when it is told).
    struct StateMachine {
        /// What the channel does after a publish or a commit.
        enum Action: Equatable {
            /// Nothing readers see changed (a held version, or a commit of nothing held).
            case none
            /// Versions became visible: tell subscribers of each ``nextVisible()`` hands out, in order.
            case showVisibleVersions
        }

        /// A version that became visible: subscribers are to be told of it.
        struct Visible: Equatable {
            /// Its number.
            var version: Int
            /// The RFC 6902 patch from the version before, serialised.
            var patch: [UInt8]
        }

        /// The version readers see.
        private(set) var version: Int
        /// The newest version published, visible or held.
        private(set) var latestVersion: Int
        /// Builds the state of ``latestVersion``.
        private(set) var render: any StateRenderer
        /// Builds the state of ``version`` while later versions are held (nil when ``render`` builds it).
        private(set) var pinned: (any StateRenderer)?
        /// Versions published but not yet committed, oldest first.
        private(set) var held: [HeldVersion] = []
        /// The replay ring, oldest first.
        private(set) var replay: [(version: Int, patch: [UInt8])] = []
        /// The bytes of the patches in ``replay``.
        private(set) var replayBytes = 0
        /// Patches the ring keeps at most.
        let replayCapacity: Int
        /// Bytes of patches the ring keeps at most.
        let replayByteLimit: Int
        /// Held versions up to this one are to become visible.
        private var committedThrough = 0
        /// A change shown at once, to become visible after the held versions before it.
        private var shown: (version: Int, patch: [UInt8])?

        /// A channel whose state at `version` is the one `renderer` builds, with nothing held or replayed.
        init(renderer: any StateRenderer, version: Int, replay: ReplayLimits) {
            render = renderer
            self.version = version
            latestVersion = version
            replayCapacity = replay.patches
            replayByteLimit = replay.bytes
        }

        /// The renderer of the state readers see.
        var visibleRenderer: any StateRenderer { pinned ?? render }

        /// The version the next change gets.
        var nextVersion: Int { latestVersion + 1 }

        /// A publish that changed nothing, whose renderer builds the same state: keep it (a typed state's is
        /// cheaper to hold than a tree), unless versions are held (readers' state is pinned to another).
        mutating func unchanged(renderer: any StateRenderer) {
            if held.isEmpty { render = renderer }
        }

        /// A change to ``nextVersion``, built by `renderer`, with `patch` from the version before. When `holding`
        /// (the journal does not have it yet) it is held until ``commit(through:)``; else it is shown at once,
        /// after every version held before it: call ``nextVisible()``.
        mutating func publish(renderer: any StateRenderer, patch: [UInt8], holding: Bool) -> Action {
            // NB: readers keep seeing `version` while later ones are held: fix its state before `render` moves on.
            if holding, pinned == nil { pinned = render }
            render = renderer
            latestVersion += 1
            if holding {
                held.append(HeldVersion(version: latestVersion, renderer: renderer, patch: patch))
                return .none
            }
            // NB: versions become visible in order: anything held before this one goes out first.
            committedThrough = latestVersion - 1
            shown = (latestVersion, patch)
            return .showVisibleVersions
        }

        /// Held versions up to `version` are to become visible.
        mutating func commit(through version: Int) -> Action {
            committedThrough = max(committedThrough, version)
            guard let first = held.first, first.version <= version else { return .none }
            return .showVisibleVersions
        }

        /// Makes the next version due visible (the oldest committed held one, then a shown change) and
        /// returns it, with the replay ring updated; nil when none is due.
        mutating func nextVisible() -> Visible? {
            if let first = held.first, first.version <= committedThrough {
                held.removeFirst()
                // NB: the newest version's state is `render`'s; an older one stays pinned until its successors
                // become visible.
                makeVisible(first.version, pinned: first.version == latestVersion ? nil : first.renderer)
                remember(version: first.version, patch: first.patch)
                return Visible(version: first.version, patch: first.patch)
            }
            guard let change = shown else { return nil }
            shown = nil
            makeVisible(change.version, pinned: nil)
            remember(version: change.version, patch: change.patch)
            return Visible(version: change.version, patch: change.patch)
        }

        private mutating func makeVisible(_ newVersion: Int, pinned: (any StateRenderer)?) {
            version = newVersion
            self.pinned = pinned
        }

        /// Drops the held versions: another process owns the view model now, and what was held never reached
        /// its journal, so no client may see it. Later diffs start from what readers have.
        mutating func abandon() {
            if !held.isEmpty, let pinned {
                render = pinned
                self.pinned = nil
            }
            held.removeAll()
            latestVersion = version
            committedThrough = version
        }

        // MARK: Replay ring

        /// Keeps `patch` at the ring's end, dropping the oldest patches beyond ``replayCapacity`` patches or
        /// ``replayByteLimit`` bytes (a patch over the limit on its own empties the ring: a resume gets a
        /// snapshot, which is smaller).
        mutating func remember(version: Int, patch: [UInt8]) {
            guard replayCapacity > 0 else { return }
            guard patch.count <= replayByteLimit else {
                replay.removeAll()
                replayBytes = 0
                return
            }
            var dropped = 0
            while dropped < replay.count,
                replay.count - dropped >= replayCapacity || replayBytes + patch.count > replayByteLimit
            {
                replayBytes -= replay[dropped].patch.count
                dropped += 1
            }
            // NB: at most `replayCapacity` entries move; cheaper than the patch's own bytes.
            replay.removeFirst(dropped)
            replay.append((version, patch))
            replayBytes += patch.count
        }

        /// Fills the ring from the journal, oldest first; entries not directly before ``version`` are ignored.
        mutating func restoreReplay(_ entries: [(version: Int, patch: [UInt8])]) {
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
            guard let oldest = replay.first?.version, lastEventID + 1 >= oldest else { return nil }
            return Array(replay[(lastEventID + 1 - oldest)...])
        }
    }
}
