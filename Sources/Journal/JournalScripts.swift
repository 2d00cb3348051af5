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

    /// Writes sessions: every session of a flush in one call (at most ``JournalWriteBatch/maximumSessions``).
    /// KEYS, per session: hash, then key order and keys (only when it has answers to write), then one replay list
    /// per view model written.
    /// ARGV: owner, ttl ms, key capacity, bytes of answers kept per session (past either, the oldest keys go; the
    /// newest stays), session count; then per session: mode (`update` | `full`), for `full` only the session's
    /// subject digest (empty for none), view model count, answer count, then per view model: name, checkpoint
    /// (empty for none: then the snapshot delta is written), snapshot delta, the entries its replay list keeps
    /// (the replay ring's and every one after the checkpoint), patch count, patches…; then per answer: key,
    /// answer.
    /// Returns one integer per session, in order: 1 written, 0 owned by another process (nothing of it
    /// written), -1 missing (an `update` of a session Redis no longer has: write it in full).
    ///
    /// Each session is fenced on its own: one owned elsewhere leaves the others of the call written.
    /// An `update` (the common case: a few patches of one view model) runs three Redis commands: the owner
    /// check, the snapshot delta (or a checkpoint) and one `RPUSH` of every new patch; once the list holds a
    /// sixteenth more than it keeps, a `LTRIM` cuts it back (a reader takes only the ring's bounds of it). NB: a
    /// `LTRIM` each time the ring was full was the largest of the script's Redis commands (~1.1 to 1.8 µs of its
    /// ~6.3 µs per session written, `INFO commandstats` with a batch of 25). Expiry is set when a key is created (a `full` write, a new list) and refreshed by ``touch`` for
    /// sessions in use; `HSET` and `RPUSH` keep a key's expiry.
    /// NB: an ordinary `update` names two keys and sends eight arguments besides its patches (mode, the two
    /// counts, then its view model's name, empty checkpoint, delta, list length and patch count): what Redis
    /// spent on a write was mostly taking its keys and arguments into Lua (~3.5 µs of ~6.3 per session, with
    /// four keys and nine arguments then), not its commands.
    /// NB: one call for many sessions rather than one each: per session, the call's own cost (the script's
    /// lookup and Lua setup in Redis; a command, its callback and its reply in vmhost) was more than the writes.
    /// The sessions' keys lie in different hash slots: one Redis (as vmhost's one connection), not a Cluster.
    private static let writeSource = """
        local me = ARGV[1]
        local ttl = tonumber(ARGV[2])
        local keyCap = tonumber(ARGV[3])
        local byteCap = tonumber(ARGV[4])
        local results = {}
        local k = 0
        local i = 6
        for s = 1, tonumber(ARGV[5]) do
          local hash = KEYS[k + 1]
          local mode = ARGV[i]
          local subject = ''
          if mode ~= 'update' then
            subject = ARGV[i + 1]
            i = i + 1
          end
          local models = tonumber(ARGV[i + 1])
          local answers = tonumber(ARGV[i + 2])
          local lists = k + 1
          if answers > 0 then lists = k + 3 end
          local owner = redis.call('HGET', hash, 'owner')
          local result = 1
          if mode == 'update' then
            if not owner then result = -1 elseif owner ~= me then result = 0 end
          elseif owner and owner ~= me then
            result = 0
          end
          local write = result == 1
          if write and mode ~= 'update' then
            redis.call('HSET', hash, 'owner', me)
            if subject ~= '' then redis.call('HSET', hash, 'sub', subject) end
            redis.call('PEXPIRE', hash, ttl)
          end
          i = i + 3
          for v = 1, models do
            local keep = tonumber(ARGV[i + 3])
            local patches = tonumber(ARGV[i + 4])
            if write then
              local ring = KEYS[lists + v]
              if ARGV[i + 1] ~= '' then
                redis.call('HSET', hash, 'vm:' .. ARGV[i], ARGV[i + 1])
                redis.call('HDEL', hash, 'd:' .. ARGV[i])
              else
                redis.call('HSET', hash, 'd:' .. ARGV[i], ARGV[i + 2])
              end
              if mode ~= 'update' or keep == 0 then redis.call('DEL', ring) end
              if patches > 0 then
                local length = redis.call('RPUSH', ring, unpack(ARGV, i + 5, i + 4 + patches))
                if length > keep + math.floor(keep / 16) then redis.call('LTRIM', ring, -keep, -1) end
                if length == patches then redis.call('PEXPIRE', ring, ttl) end
              end
            end
            i = i + 5 + patches
          end
          if write and answers > 0 then
            local order = KEYS[k + 2]
            local keys = KEYS[k + 3]
            local bytes = tonumber(redis.call('HGET', keys, '') or '0')
            for a = i, i + 2 * answers - 2, 2 do
              local previous = redis.call('HSTRLEN', keys, ARGV[a])
              if redis.call('HSET', keys, ARGV[a], ARGV[a + 1]) == 1 then
                redis.call('RPUSH', order, ARGV[a])
                bytes = bytes + #ARGV[a]
              end
              bytes = bytes + #ARGV[a + 1] - previous
            end
            local length = redis.call('LLEN', order)
            while length > keyCap or (bytes > byteCap and length > 1) do
              local oldest = redis.call('LPOP', order)
              local size = redis.call('HSTRLEN', keys, oldest)
              if size > 0 then bytes = bytes - #oldest - size end
              redis.call('HDEL', keys, oldest)
              length = length - 1
            end
            redis.call('HSET', keys, '', bytes)
            redis.call('PEXPIRE', order, ttl)
            redis.call('PEXPIRE', keys, ttl)
          end
          i = i + 2 * answers
          k = lists + models
          results[s] = result
        end
        return results
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
