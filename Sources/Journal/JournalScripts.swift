/// The Lua scripts of the journal. Each runs atomically in Redis, so the ownership check (the fencing) and
/// the writes it guards are one step: a process that lost a session can never write it again.
///
/// Keys of session `ID`, named by its digest `D` (``SessionID/digest(_:)``; the braces are a Redis Cluster hash
/// tag: one session's keys share a slot):
/// - `vmhost:{D}`: hash. `owner` → the process that may write it; `vm:NAME` → a view model's checkpoint (`z` and
///   the raw deflate of its version, state and snapshot: ``JournalRecordCoding``; or, written by earlier
///   releases, `{"version", "state", "snapshot"}`); `d:NAME` → the part of its snapshot changed since the
///   checkpoint (``SnapshotDelta``); `sub` → the hex SHA-256 of the subject the session belongs to (only
///   with authentication).
/// - `vmhost:{D}:r:NAME`: list, the view model's newest patches, `"VERSION PATCH"` each (a large patch
///   compressed), oldest first: its replay ring and the log since its checkpoint in one, which a reader
///   applies to the checkpoint's state.
/// - `vmhost:{D}:k`: hash, `Idempotency-Key` → its answer (``JournalRecordCoding``), and `""` (never a key: keys
///   are 1 to 255 characters) → the bytes of the answers; `vmhost:{D}:ko`: list, the keys oldest first.
enum JournalScript: CaseIterable {
    case write, takeOver, release, touch, delete, hibernate

    /// The Lua text. NB: the SHA1 cache is keyed by the case, not the text: hashing the text on every call
    /// cost more than building the call.
    var source: String {
        switch self {
        case .write: Self.writeSource
        case .takeOver: Self.takeOverSource
        case .release: Self.releaseSource
        case .touch: Self.touchSource
        case .delete: Self.deleteSource
        case .hibernate: Self.hibernateSource
        }
    }

    /// Writes a session. KEYS: hash, key order, keys, then one replay list per view model written.
    /// ARGV: owner, ttl ms, replay capacity (unused: the writer says what each list keeps), key capacity, mode
    /// (`create` | `update` | `full`), the session's subject digest (empty for none; written by `create` and
    /// `full` writes), view model count, then per view
    /// model: name, checkpoint (empty for none: then the snapshot delta is written), snapshot delta, the entries
    /// its replay list keeps (the replay ring's and every one after the checkpoint),
    /// patch count, patches…; then answer count, then key, answer…, then the bytes of answers
    /// kept (past it, or past the key capacity, the oldest keys go; the newest stays).
    /// Returns 1 written, 0 owned by another process, -1 missing (an `update` of a session Redis no longer
    /// has: write it in full).
    ///
    /// An `update` (the common case: a few patches of one view model) runs four Redis commands: the owner
    /// check, the snapshot delta (or a checkpoint), one `RPUSH` of every new patch, and a `LTRIM` once the ring
    /// is full. Expiry is set
    /// when a key is created (a `full` write, a new list) and refreshed by ``touch`` for sessions in use;
    /// `HSET` and `RPUSH` keep a key's expiry.
    private static let writeSource = """
        local owner = redis.call('HGET', KEYS[1], 'owner')
        local me = ARGV[1]
        local mode = ARGV[5]
        if mode == 'update' then
          if not owner then return -1 end
          if owner ~= me then return 0 end
        elseif owner and owner ~= me then
          return 0
        end
        local ttl = tonumber(ARGV[2])
        local keyCap = tonumber(ARGV[4])
        if mode ~= 'update' then
          redis.call('HSET', KEYS[1], 'owner', me)
          if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'sub', ARGV[6]) end
          redis.call('PEXPIRE', KEYS[1], ttl)
        end
        local i = 8
        for v = 1, tonumber(ARGV[7]) do
          local ring = KEYS[3 + v]
          if ARGV[i + 1] ~= '' then
            redis.call('HSET', KEYS[1], 'vm:' .. ARGV[i], ARGV[i + 1])
            redis.call('HDEL', KEYS[1], 'd:' .. ARGV[i])
          else
            redis.call('HSET', KEYS[1], 'd:' .. ARGV[i], ARGV[i + 2])
          end
          local keep = tonumber(ARGV[i + 3])
          local patches = tonumber(ARGV[i + 4])
          i = i + 5
          if mode ~= 'update' or keep == 0 then redis.call('DEL', ring) end
          if patches > 0 then
            local length = redis.call('RPUSH', ring, unpack(ARGV, i, i + patches - 1))
            i = i + patches
            if length > keep then redis.call('LTRIM', ring, -keep, -1) end
            if length == patches then redis.call('PEXPIRE', ring, ttl) end
          end
        end
        local answers = tonumber(ARGV[i])
        i = i + 1
        if answers > 0 then
          local byteCap = tonumber(ARGV[i + 2 * answers])
          local bytes = tonumber(redis.call('HGET', KEYS[3], '') or '0')
          for a = 1, answers do
            local previous = redis.call('HSTRLEN', KEYS[3], ARGV[i])
            if redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) == 1 then
              redis.call('RPUSH', KEYS[2], ARGV[i])
              bytes = bytes + #ARGV[i]
            end
            bytes = bytes + #ARGV[i + 1] - previous
            i = i + 2
          end
          local length = redis.call('LLEN', KEYS[2])
          while length > keyCap or (bytes > byteCap and length > 1) do
            local oldest = redis.call('LPOP', KEYS[2])
            local size = redis.call('HSTRLEN', KEYS[3], oldest)
            if size > 0 then bytes = bytes - #oldest - size end
            redis.call('HDEL', KEYS[3], oldest)
            length = length - 1
          end
          redis.call('HSET', KEYS[3], '', bytes)
          redis.call('PEXPIRE', KEYS[2], ttl)
          redis.call('PEXPIRE', KEYS[3], ttl)
        end
        return 1
        """

    /// Takes a session over and reads it. KEYS: hash, key order, keys, then one replay list per view model (`n`
    /// keys); then the same `n` keys in the layout named by the id (releases before the digest).
    /// ARGV: the new owner, `n`. Returns 0 for a missing session, else
    /// `{hash as HGETALL, key order, keys as HGETALL, replay list…}`.
    ///
    /// Migration: a session found only under its id's keys (written by an earlier release) has them renamed to
    /// the digest's, in this same atomic step (`RENAME` keeps each key's expiry); the id's hash is left as a
    /// tombstone owned by `migrated` for at most a minute (longer than an earlier release's refresh interval,
    /// 30 s at most), so an earlier release still holding the session finds it owned elsewhere at its next write
    /// or refresh and hands it over, as after any takeover.
    /// NB: on Redis Cluster the two layouts hash to different slots, so this step needs one Redis (as every
    /// deployment of the earlier releases had: docs/durable-sessions.md).
    private static let takeOverSource = """
        local n = tonumber(ARGV[2])
        if redis.call('EXISTS', KEYS[1]) == 0 and redis.call('EXISTS', KEYS[n + 1]) == 1 then
          for k = 1, n do
            if redis.call('EXISTS', KEYS[n + k]) == 1 then redis.call('RENAME', KEYS[n + k], KEYS[k]) end
          end
          local ttl = redis.call('PTTL', KEYS[1])
          if ttl <= 0 or ttl > 60000 then ttl = 60000 end
          redis.call('HSET', KEYS[n + 1], 'owner', 'migrated')
          redis.call('PEXPIRE', KEYS[n + 1], ttl)
        end
        local owner = redis.call('HGET', KEYS[1], 'owner')
        if not owner then return 0 end
        redis.call('HSET', KEYS[1], 'owner', ARGV[1])
        local result = {redis.call('HGETALL', KEYS[1]), redis.call('LRANGE', KEYS[2], 0, -1),
                        redis.call('HGETALL', KEYS[3])}
        for r = 4, n do
          result[#result + 1] = redis.call('LRANGE', KEYS[r], 0, -1)
        end
        return result
        """

    /// Gives a session up (drain): any process may take it over at once. KEYS: hash. ARGV: owner.
    private static let releaseSource = """
        if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then
          redis.call('HSET', KEYS[1], 'owner', '')
          return 1
        end
        return 0
        """

    /// Refreshes the expiry of a session this process owns. KEYS: every key of the session. ARGV: owner, ttl.
    /// Returns 1 refreshed, 0 owned by another process, -1 missing.
    private static let touchSource = """
        local owner = redis.call('HGET', KEYS[1], 'owner')
        if not owner then return -1 end
        if owner ~= ARGV[1] then return 0 end
        for k = 1, #KEYS do redis.call('PEXPIRE', KEYS[k], tonumber(ARGV[2])) end
        return 1
        """

    /// Deletes a session this process owns. KEYS: every key of the session. ARGV: owner.
    private static let deleteSource = """
        if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
        return redis.call('DEL', unpack(KEYS))
        """
}
