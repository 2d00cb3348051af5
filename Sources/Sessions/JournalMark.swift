/// What the journal last checkpointed of one view model (kept in its slot, read and written by the journal
/// only): the version of the checkpoint and what was logged since.
public struct JournalMark: Sendable, Equatable {
    /// The version of the checkpoint in Redis.
    public var version: Int
    /// Patches written since the checkpoint.
    public var patches = 0
    /// Bytes of the patches written since the checkpoint.
    public var bytes = 0

    /// Creates the mark of a checkpoint at `version`, with nothing logged since.
    public init(version: Int) {
        self.version = version
    }
}
