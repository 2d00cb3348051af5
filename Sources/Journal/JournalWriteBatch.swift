import Redis
import Sessions

/// The writes of sessions of one flush: one call of the write script (``JournalScript`` `write`), the
/// sessions' keys and arguments encoded as they are appended, and one transaction of the ordinary updates the
/// fast path takes (``RedisJournal``: plain commands fenced by the keys' names); and what each session's write
/// carried, to commit once Redis answered.
///
/// Keys and arguments are kept apart because the call sends every key before any argument; ``command(after:)``
/// puts them behind the script's name. NB: each in a ``RedisArguments`` (a buffer appended to in place, copied
/// once into the call), hence noncopyable.
struct JournalWriteBatch: ~Copyable {
    /// The most sessions one call writes.
    /// NB: Redis runs a script alone (it is single-threaded, and shared by every node): a bounded call keeps
    /// the other clients' commands from waiting behind one long batch.
    static let maximumSessions = 64
    /// About the most bytes one call carries (a call is sent once it reaches them).
    static let maximumBytes = 256 * 1024

    /// One session's write in the call. What it carries of each view model is the slot's `journaledVersion`
    /// (one write per session is in flight).
    struct Member {
        let session: Session
        let mode: RedisJournal.Writes.WriteMode
    }

    /// The sessions' keys, in order (the hash, key order and keys, then the replay lists written, per session).
    var keys = RedisArguments(capacity: 1024)
    /// The sessions' arguments, in order (from the mode on, per session).
    var arguments: RedisArguments
    /// The sessions written by the script, in order.
    private(set) var members: [Member] = []

    /// One session's write in the transaction: an ordinary update of one view model (its new patches, and its
    /// extras when they changed), or the first write of a session created here.
    struct FastMember {
        let session: Session
        /// The view model updated; nil for a session's creation (`HSET` of its hash, then `PEXPIRE`).
        let slot: ViewModelSlot?
        /// Whether it made the list (`RPUSH`, `PEXPIRE`, `HGET` of the owner) rather than pushed onto it.
        let makesList: Bool
        /// The entries a `LTRIM` after the push cut the list back to (0: none sent).
        let trimmedTo: Int
        /// The bytes of the patches in the list once written (``ViewModelSlot/journalListBytes``).
        let listBytes: Int
        /// Whether it set the delta key to the view model's extras (they changed).
        let setsExtras: Bool
        /// The transaction's commands it sent: `RPUSHX` (or `RPUSH`, `PEXPIRE` and `HGET`), then `LTRIM` and the
        /// delta key's `SET` if any; or for a creation `HSET` and `PEXPIRE`.
        var commands: Int {
            slot == nil ? 2 : 1 + (makesList ? 2 : 0) + (trimmedTo > 0 ? 1 : 0) + (setsExtras ? 1 : 0)
        }
        /// Whether its one command (`RPUSHX`) is sent ahead of the transaction (``RedisTransaction``'s standalone
        /// commands, answered first); a write of several commands is queued in the transaction, one step.
        var isStandalone: Bool { commands == 1 }

        /// An ordinary update of `slot`.
        init(
            session: Session, slot: ViewModelSlot, makesList: Bool, trimmedTo: Int, listBytes: Int, setsExtras: Bool
        ) {
            self.session = session
            self.slot = slot
            self.makesList = makesList
            self.trimmedTo = trimmedTo
            self.listBytes = listBytes
            self.setsExtras = setsExtras
        }

        /// The creation of `session`.
        init(creating session: Session) {
            self.session = session
            slot = nil
            makesList = false
            trimmedTo = 0
            listBytes = 0
            setsExtras = false
        }
    }

    /// The ordinary updates (``FastMember``): `RPUSHX`, perhaps `LTRIM`, perhaps `SET … PX` of the extras; and the
    /// creations: `HSET` of the hash (owner, epoch, subject, checkpoints), `PEXPIRE`. A push alone is standalone
    /// (``FastMember/isStandalone``); the commands of every other write are queued in the transaction.
    var transaction = RedisTransaction(capacity: 4096)
    /// The sessions written by the transaction, in order.
    private(set) var fastMembers: [FastMember] = []

    /// An empty batch with room for `capacity` bytes of arguments.
    init(capacity: Int = 4096) {
        arguments = RedisArguments(capacity: capacity)
        members.reserveCapacity(8)
    }

    var isEmpty: Bool { members.isEmpty && fastMembers.isEmpty }

    /// Whether the batch is to be sent before another session joins it.
    var isFull: Bool {
        members.count + fastMembers.count >= Self.maximumSessions
            || keys.byteCount + arguments.byteCount + transaction.byteCount >= Self.maximumBytes
    }

    /// Records a session whose keys and arguments were appended.
    mutating func add(_ member: Member) {
        members.append(member)
    }

    /// Records a session whose commands were appended to the transaction.
    mutating func add(_ member: FastMember) {
        fastMembers.append(member)
    }

    /// The whole call behind `head` (`EVALSHA` and the SHA1, or `EVAL` and the text): the key count, the keys,
    /// the arguments common to every session, the session count, then the sessions' arguments.
    func command(
        after head: consuming RedisCommand, owner: String, ttlMilliseconds: Int, keyCapacity: Int,
        keyBytesCapacity: Int
    ) -> RedisCommand {
        var command = head
        command.append(keys.count)
        command.append(keys)
        command.append(owner)
        command.append(ttlMilliseconds)
        command.append(keyCapacity)
        command.append(keyBytesCapacity)
        command.append(members.count)
        command.append(arguments)
        return command
    }

    /// The byte count of the call's keys and arguments (for the command's capacity).
    var byteCount: Int { keys.byteCount + arguments.byteCount }
}
