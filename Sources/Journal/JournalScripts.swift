/// The Lua scripts of the journal. Each runs atomically in Redis, so the ownership check (the fencing) and
/// the writes it guards are one step: a process that lost a session can never write it again.
///
/// Keys of session `ID`, named by its digest `D` (``SessionID/digest(_:)``; the braces are a Redis Cluster hash
/// tag: one session's keys share a slot):
/// - `vmhost:{D}`: hash. `owner` → the process that may write it; `e` → its epoch `E`, raised by every takeover
///   (the keys below carry it); `vm:NAME` → a view model's checkpoint (`w` and the raw deflate of its version,
///   state and extras: ``JournalRecordCoding``; or, written by earlier releases, `x`, `y` or `z` and the same
///   with the snapshot for the extras, or `{"version", "state", "snapshot"}`); `sub` → the hex SHA-256 of the
///   subject the session belongs to (only with authentication).
/// - `vmhost:{D}:r:NAME:E`: list, the view model's newest patches, `"VERSION PATCH"` each (a large patch
///   compressed), oldest first: its replay ring and the log since its checkpoint in one, which a reader
///   applies to the checkpoint's state.
/// - `vmhost:{D}:d:NAME:E`: string, the view model's extras once they changed since the checkpoint (`e` and their
///   text: ``JournalRecordCoding/appendExtras(_:to:)``; none right after a checkpoint, which holds them). Earlier
///   releases kept the snapshot's delta here (``SnapshotDelta``), behind the log's newest patches for `x`.
/// - `vmhost:{D}:k`: hash, `Idempotency-Key` → its answer (``JournalRecordCoding``), and `""` (never a key: keys
///   are 1 to 255 characters) → the bytes of the answers; `vmhost:{D}:ko`: list, the keys oldest first.
///
/// Fencing by name: the list and the delta key of a view model are named by the epoch, and a takeover renames
/// them to the next one. So an ordinary write needs no script: `RPUSHX` of the patches, and a `SET` of the extras
/// when they changed, in a transaction (``RedisJournal``'s fast path). `RPUSHX` pushes only onto a list that
/// exists under the writer's epoch, so a process that lost the session writes nothing and learns so from the
/// reply (a `SET` behind an `RPUSHX` that pushed nothing lands under the old epoch's name, which nobody reads,
/// and expires). It then writes in full through ``write``, which checks the owner and tells it the session went
/// elsewhere.
///
/// Earlier releases (epoch 0, no `e`): the list was `vmhost:{D}:r:NAME` and the delta the hash's field
/// `d:NAME`; a takeover renames and moves them (``takeOver``). A checkpoint this release writes starts with `w`
/// (`x` before extras, `y` before delta keys held patches, `z` before epochs) so that an earlier release, which
/// would read extras as a snapshot (or, before epochs, the record without its log), finds it unreadable and
/// treats it as missing instead of loading a wrong or older state.
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

    /// Writes sessions: every session of a flush that the fast path does not take, in one call (at most
    /// ``JournalWriteBatch/maximumSessions``): full writes (but a new session's first), checkpoints, idempotency
    /// answers, writes of two view models.
    /// KEYS, per session: hash, then key order and keys (only when it has answers to write), then per view model
    /// written its replay list and its delta (named by the session's epoch).
    /// ARGV: owner, ttl ms, key capacity, bytes of answers kept per session (past either, the oldest keys go; the
    /// newest stays), session count; then per session: mode (`update` | `full`), for `full` only the session's
    /// subject digest (empty for none) and its epoch, view model count, answer count, then per view model: name,
    /// checkpoint (empty for none), the delta key's value (the extras; empty with a checkpoint, which holds
    /// them: the key is deleted), the entries its replay list keeps (the replay ring's and every one after the
    /// checkpoint), the length past which the list is cut back to those, patch count, patches…; then per answer:
    /// key, answer.
    /// Returns one integer per session, in order: 1 written, 0 owned by another process (nothing of it
    /// written), -1 missing (an `update` of a session Redis no longer has: write it in full).
    ///
    /// Each session is fenced on its own: one owned elsewhere leaves the others of the call written.
    /// Once a list holds more than that length (``JournalLogPolicy/trimsList(length:keep:excessBytes:)``), a
    /// `LTRIM` cuts it back (a reader takes only the ring's bounds of it). Expiry is set when a key is created (a
    /// `full` write, a new list, all extras) and refreshed by ``touch`` for sessions in use; `HSET` and `RPUSH`
    /// keep a key's expiry.
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
          local epoch = ''
          if mode ~= 'update' then
            subject = ARGV[i + 1]
            epoch = ARGV[i + 2]
            i = i + 2
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
            redis.call('HSET', hash, 'owner', me, 'e', epoch)
            if subject ~= '' then redis.call('HSET', hash, 'sub', subject) end
            redis.call('PEXPIRE', hash, ttl)
          end
          i = i + 3
          for v = 1, models do
            local keep = tonumber(ARGV[i + 3])
            local limit = tonumber(ARGV[i + 4])
            local patches = tonumber(ARGV[i + 5])
            if write then
              local ring = KEYS[lists + 2 * v - 1]
              if ARGV[i + 1] ~= '' then redis.call('HSET', hash, 'vm:' .. ARGV[i], ARGV[i + 1]) end
              if ARGV[i + 2] ~= '' then
                redis.call('SET', KEYS[lists + 2 * v], ARGV[i + 2], 'PX', ttl)
              else
                redis.call('DEL', KEYS[lists + 2 * v])
              end
              if mode ~= 'update' or keep == 0 then redis.call('DEL', ring) end
              if patches > 0 then
                local length = redis.call('RPUSH', ring, unpack(ARGV, i + 6, i + 5 + patches))
                if length > limit then redis.call('LTRIM', ring, -keep, -1) end
                if length == patches then redis.call('PEXPIRE', ring, ttl) end
              end
            end
            i = i + 6 + patches
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
          k = lists + 2 * models
          results[s] = result
        end
        return results
        """

    /// Takes a session over and reads it. KEYS: hash, key order, keys, then one replay list per view model, named
    /// as earlier releases named them (without an epoch) (`n` keys); then the same `n` keys in the layout named by
    /// the id (releases before the digest).
    /// ARGV: the new owner, `n`, then the view models' names (as the lists are ordered). Returns 0 for a missing
    /// session, else `{hash as HGETALL, key order, keys as HGETALL, replay list…, delta…}` (one list and one
    /// delta per view model; an empty delta for none).
    ///
    /// The epoch goes up by one, and each view model's list and delta are renamed to it (`RENAME` keeps a key's
    /// expiry): a process still writing them under the old epoch finds them gone (see the layout above). A
    /// session of an earlier release (epoch 0) has its lists renamed and its deltas moved from the hash to keys
    /// of their own (with the hash's expiry) in this same step.
    ///
    /// Migration: a session found only under its id's keys (written by an earlier release) has them renamed to
    /// the digest's, in this same atomic step; the id's hash is left as a tombstone owned by `migrated` for at
    /// most a minute (longer than an earlier release's refresh interval, 30 s at most), so an earlier release
    /// still holding the session finds it owned elsewhere at its next write or refresh and hands it over, as
    /// after any takeover.
    /// NB: on Redis Cluster the two layouts hash to different slots, so this step needs one Redis (as every
    /// deployment of the earlier releases had: docs/durable-sessions.md). The epoch's names are made here, from
    /// the keys given (same slot).
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
        local hash = KEYS[1]
        local owner = redis.call('HGET', hash, 'owner')
        if not owner then return 0 end
        local epoch = tonumber(redis.call('HGET', hash, 'e') or '0')
        local next = epoch + 1
        local ttl = redis.call('PTTL', hash)
        local rings = {}
        local deltas = {}
        for v = 4, n do
          local name = ARGV[v - 1]
          local ring = KEYS[v] .. ':' .. next
          local delta = hash .. ':d:' .. name .. ':' .. next
          local oldRing = KEYS[v]
          if epoch > 0 then oldRing = oldRing .. ':' .. epoch end
          if redis.call('EXISTS', oldRing) == 1 then redis.call('RENAME', oldRing, ring) end
          if epoch > 0 then
            local old = hash .. ':d:' .. name .. ':' .. epoch
            if redis.call('EXISTS', old) == 1 then redis.call('RENAME', old, delta) end
          else
            local text = redis.call('HGET', hash, 'd:' .. name)
            if text then
              redis.call('HDEL', hash, 'd:' .. name)
              if ttl > 0 then redis.call('SET', delta, text, 'PX', ttl) else redis.call('SET', delta, text) end
            end
          end
          rings[#rings + 1] = redis.call('LRANGE', ring, 0, -1)
          deltas[#deltas + 1] = redis.call('GET', delta) or ''
        end
        redis.call('HSET', hash, 'owner', ARGV[1], 'e', next)
        local result = {redis.call('HGETALL', hash), redis.call('LRANGE', KEYS[2], 0, -1),
                        redis.call('HGETALL', KEYS[3])}
        for v = 1, #rings do result[#result + 1] = rings[v] end
        for v = 1, #deltas do result[#result + 1] = deltas[v] end
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

    /// Refreshes the expiry of the sessions this process owns, many in one call. KEYS: each session's keys, its
    /// hash first. ARGV: owner, ttl, then each session's key count. Returns one integer per session, in order:
    /// 1 refreshed, 0 owned by another process (nothing of it touched), -1 missing.
    /// NB: one call for many sessions, as ``write``: per session, a call of its own cost Redis the script's lookup
    /// and Lua setup, and vmhost a task, a command and its reply (~50k instructions a session, callgrind:
    /// docs/performance.md, issue 26's tenth stop).
    private static let touchSource = """
        local ttl = tonumber(ARGV[2])
        local results = {}
        local first = 1
        for s = 3, #ARGV do
          local count = tonumber(ARGV[s])
          local owner = redis.call('HGET', KEYS[first], 'owner')
          if not owner then
            results[#results + 1] = -1
          elseif owner ~= ARGV[1] then
            results[#results + 1] = 0
          else
            for k = first, first + count - 1 do redis.call('PEXPIRE', KEYS[k], ttl) end
            results[#results + 1] = 1
          end
          first = first + count
        end
        return results
        """

    /// Deletes a session this process owns. KEYS: every key of the session. ARGV: owner.
    private static let deleteSource = """
        if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
        return redis.call('DEL', unpack(KEYS))
        """
}
