import Redis
import Sessions

/// One call of the write script (``JournalScript`` `write`): sessions of one flush, their keys and their
/// arguments, each encoded as it is appended, and what each session's write carried, to commit once Redis
/// answered.
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
    /// The sessions written, in order.
    private(set) var members: [Member] = []

    /// An empty batch with room for `capacity` bytes of arguments.
    init(capacity: Int = 4096) {
        arguments = RedisArguments(capacity: capacity)
        members.reserveCapacity(8)
    }

    var isEmpty: Bool { members.isEmpty }

    /// Whether the call is to be sent before another session joins it.
    var isFull: Bool {
        members.count >= Self.maximumSessions || keys.byteCount + arguments.byteCount >= Self.maximumBytes
    }

    /// Records a session whose keys and arguments were appended.
    mutating func add(_ member: Member) {
        members.append(member)
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
