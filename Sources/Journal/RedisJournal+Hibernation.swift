import EventLoop
import Redis
import Sessions

/// Hibernation in Redis: a durable, idle session is released (fenced: only while this process owns it) and its
/// keys' expiry set to what is left of its idle timeout, so Redis forgets it exactly when a resident one would
/// have expired. Waking it is an ordinary takeover (``load(_:)``), whatever the journal's layout.
extension RedisJournal {
    public func hibernate(
        _ session: Session, idleFor idle: Duration, then completion: @escaping @LoopActor (HibernationOutcome) -> Void
    ) -> Bool {
        guard !writes.isStopped, client.isAvailable, !session.isClosed else { return false }
        switch writes.hibernation(of: ObjectIdentifier(session), hasUnjournaledChanges: session.hasUnjournaledChanges) {
        case .refuse:
            return false
        case .writeInFullFirst:
            // Not durable (Redis was away, or lost it): write it in full now; it is due again at the next sweep.
            markDirty(session)
            return false
        case .release:
            break
        }
        let (seconds, attoseconds) = idle.components
        let idleMilliseconds = Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        // NB: at least a second, so a session due to expire now is not dropped before its release is answered.
        let remaining = max(1000, ttlMilliseconds - idleMilliseconds)
        let keys = JournalKeys(digest: session.digest).all(viewModels: names, epoch: session.journalEpoch)
        let call = HibernationCall()
        evaluate(
            .hibernate, keys: keys, arguments: [Array(owner.utf8), Array(String(remaining).utf8)]
        ) { result in
            guard call.returned else {
                // NB: refused before it was sent (the client went away meanwhile): the session stays resident.
                call.refusedAtOnce = true
                return
            }
            self.finishHibernation(session, result, then: completion)
        }
        call.returned = true
        return !call.refusedAtOnce
    }

    private func finishHibernation(
        _ session: Session, _ result: Result<RedisReply, RedisError>,
        then completion: @LoopActor (HibernationOutcome) -> Void
    ) {
        switch result {
        case .success(.integer(1)), .success(.integer(2)):
            logger.debug("session hibernated", metadata: ["session": "\(session.digest)"])
            completion(.released)
        case .success(.integer(0)):
            logger.info("session owned elsewhere: handed over", metadata: ["session": "\(session.digest)"])
            completion(.ownedElsewhere)
        case .success(.integer(-1)):
            // Redis lost it (restarted empty, or flushed): it stays here and is written in full again.
            completion(.stayResident)
            writes.hibernationFoundMissing(ObjectIdentifier(session), session)
            markDirty(session)
        case .success(let other):
            logger.error(
                "journal hibernate: unexpected reply", metadata: ["session": "\(session.digest)", "reply": "\(other)"])
            completion(.failed)
        case .failure(let error):
            logger.warning(
                "journal hibernate failed: retried", metadata: ["session": "\(session.digest)", "error": "\(error)"])
            completion(.failed)
        }
    }
}

/// Whether ``RedisJournal/hibernate(_:idleFor:then:)`` returned before its command's outcome arrived.
@LoopActor
private final class HibernationCall {
    var returned = false
    var refusedAtOnce = false
}

extension JournalScript {
    /// Releases a session this process owns for hibernation. KEYS: every key of the session (the hash first).
    /// ARGV: owner, the expiry in ms (what is left of the session's idle timeout). Returns 1 released, 2 already
    /// released (an earlier try whose answer was lost; its expiry is left alone), 0 owned by another process,
    /// -1 missing.
    static let hibernateSource = """
        local owner = redis.call('HGET', KEYS[1], 'owner')
        if not owner then return -1 end
        if owner == '' then return 2 end
        if owner ~= ARGV[1] then return 0 end
        local ttl = tonumber(ARGV[2])
        for k = 1, #KEYS do redis.call('PEXPIRE', KEYS[k], ttl) end
        redis.call('HSET', KEYS[1], 'owner', '')
        return 1
        """
}
