import EventLoop
import Journal
import Sessions

/// The Redis journal as a ``EventLoop/LoopService``: its shutdown writes everything pending and releases
/// every session to other nodes (`releaseAll`), closes the sessions here, then stops the journal's timers and
/// Redis client (`shutdown`).
///
/// NB: the sessions close between the two steps, as they must: released first, so another node continues
/// them with no gap; the journal stopped last, so what closing commits still has a journal to answer it.
@LoopActor
final class JournalService: LoopService {
    private let journal: RedisJournal
    private let sessions: SessionStore
    private var stopped = false

    init(journal: RedisJournal, sessions: SessionStore) {
        self.journal = journal
        self.sessions = sessions
    }

    func shutdown() async {
        guard !stopped else { return }
        stopped = true
        await journal.releaseAll()
        sessions.closeAll()
        journal.shutdown()
    }
}
