/// What the journal last checkpointed of one view model (kept in its slot, read and written by the journal
/// only): the version of the checkpoint, what was logged since, and block fingerprints of the checkpoint's
/// snapshot text, against which each write sends only the part of the snapshot that changed.
public struct JournalMark: Sendable {
    /// The version of the checkpoint in Redis.
    public var version: Int
    /// Patches written since the checkpoint.
    public var patches = 0
    /// Bytes of the patches written since the checkpoint.
    public var bytes = 0
    /// The byte count of the checkpoint's snapshot text.
    public var snapshotLength: Int
    /// A fingerprint per block of the checkpoint's snapshot, from its start.
    public var leadingBlocks: [UInt64]
    /// A fingerprint per block of the checkpoint's snapshot, from its end.
    public var trailingBlocks: [UInt64]

    /// Creates a mark.
    public init(version: Int, snapshotLength: Int, leadingBlocks: [UInt64], trailingBlocks: [UInt64]) {
        self.version = version
        self.snapshotLength = snapshotLength
        self.leadingBlocks = leadingBlocks
        self.trailingBlocks = trailingBlocks
    }
}
