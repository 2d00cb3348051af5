import EventLoop
import Sessions

/// Session expiry (the store's periodic sweep) as a ``EventLoop/LoopService``: its shutdown stops the sweep
/// and closes every session still open, ending their streams and their work.
@LoopActor
final class SessionExpiryService: LoopService {
    private let sessions: SessionStore

    init(sessions: SessionStore) {
        self.sessions = sessions
    }

    func shutdown() async {
        sessions.closeAll()
    }
}
