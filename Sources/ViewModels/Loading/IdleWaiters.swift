import EventLoop

/// Tasks waiting for a view model to become idle (`Prefer: wait`); a cancelled waiter returns at once.
@LoopActor
final class IdleWaiters {
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextID = 0

    /// Suspends until ``resumeAll()`` or until the calling task is cancelled.
    func wait() async {
        let id = nextID
        nextID += 1
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    waiters[id] = continuation
                }
            }
        } onCancel: {
            if EventLoop.shared.isOnLoopThread {
                LoopActor.assumeIsolated { self.resume(id) }
            } else {
                Task { @LoopActor in self.resume(id) }
            }
        }
    }

    /// Resumes every waiter.
    func resumeAll() {
        let current = waiters
        waiters.removeAll()
        for continuation in current.values { continuation.resume() }
    }

    private func resume(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }
}
