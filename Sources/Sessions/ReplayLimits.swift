/// What each view model's replay ring keeps for `Last-Event-ID` resume: a resume older than that gets a
/// snapshot.
public struct ReplayLimits: Sendable, Equatable {
    /// At most this many patches (`replayCapacity`).
    public var patches: Int
    /// At most this many bytes of patches (`replayBytes`): a resume that would replay more gets the snapshot,
    /// which is about as large and costs the client less.
    public var bytes: Int

    /// Creates limits.
    public init(patches: Int = 64, bytes: Int = 8192) {
        self.patches = patches
        self.bytes = bytes
    }
}
