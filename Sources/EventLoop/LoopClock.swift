/// A clock whose sleeps are libevent timers on the loop.
///
/// Time is `ContinuousClock`'s; only the waiting differs: `Task.sleep` wakes tasks through Swift's global
/// executor, so a busy or blocked thread pool would delay loop timers. `LoopClock` keeps every timer of
/// the server (debounce, `Prefer: wait`, fake latency) on the one loop.
public struct LoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    /// Creates the clock.
    public init() {}

    public var now: Instant { ContinuousClock.now }

    public var minimumResolution: Duration { .microseconds(1) }

    // NB: `nonisolated(nonsending)` keeps the caller on its executor (the loop) instead of hopping to the
    // global pool and back around every sleep.
    public nonisolated(nonsending) func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await LoopSleep.sleep(until: deadline)
    }
}

/// One pending sleep: a loop timer and the continuation it resumes.
@LoopActor
private final class LoopSleep {
    private var continuation: CheckedContinuation<Void, any Error>?
    private var timer: LoopTimer?

    static func sleep(until deadline: ContinuousClock.Instant) async throws {
        try Task.checkCancellation()
        let sleep = LoopSleep()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                    return
                }
                sleep.continuation = continuation
                let timer = LoopTimer { [sleep] in sleep.finish(throwing: nil) }
                sleep.timer = timer
                timer.schedule(after: max(.zero, deadline - ContinuousClock.now))
            }
        } onCancel: {
            if EventLoop.shared.isOnLoopThread {
                LoopActor.assumeIsolated { sleep.finish(throwing: CancellationError()) }
            } else {
                Task { @LoopActor in sleep.finish(throwing: CancellationError()) }
            }
        }
    }

    private func finish(throwing error: (any Error)?) {
        timer?.cancel()
        timer = nil
        guard let continuation else { return }
        self.continuation = nil
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
