/// The server's one clock: every part that reads the time or waits is given one (by `VMHostApplication`,
/// down to each part), and tests give a manual one (`VMHostTesting`'s `TestClock`) that moves only when
/// they say so.
///
/// Time is `ContinuousClock`'s; only the waiting differs: `Task.sleep` wakes tasks through Swift's global
/// executor, so a busy or blocked thread pool would delay loop timers. `LoopClock` keeps every timer of
/// the server (debounce, `Prefer: wait`, fake latency) on the one loop.
///
/// NB: a concrete struct, not `any Clock`: reading ``now`` on the request path is one branch on a nil
/// source and a `clock_gettime`, not an existential call.
public struct LoopClock: Clock {
    public typealias Instant = ContinuousClock.Instant

    /// Where a manual clock's time comes from (a test's); nil for real time.
    let source: (any ManualTimeSource)?

    /// The real clock.
    public init() {
        source = nil
    }

    /// A clock whose time and sleeps are `source`'s (a test clock).
    public init(source: any ManualTimeSource) {
        self.source = source
    }

    public var now: Instant {
        if let source { return source.now }
        return ContinuousClock.now
    }

    public var minimumResolution: Duration { .microseconds(1) }

    // NB: `nonisolated(nonsending)` keeps the caller on its executor (the loop) instead of hopping to the
    // global pool and back around every sleep.
    public nonisolated(nonsending) func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let source {
            try await source.sleep(until: deadline)
        } else {
            try await LoopSleep.sleep(until: deadline)
        }
    }

    /// Sleeps for `duration` from ``now``, on the caller's executor like ``sleep(until:tolerance:)``.
    ///
    /// NB: `Clock`'s generic `sleep(for:)` (Swift 6.3) calls `sleep(until:)` from the global pool, not from the
    /// caller's executor: each debounce and `Prefer: wait` timer went there and back around its sleep, and a
    /// wake-up could come back to the loop long after the timer fired (a busy pool).
    public nonisolated(nonsending) func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
        try await sleep(until: now.advanced(by: duration), tolerance: tolerance)
    }
}

/// The time of a manual ``LoopClock``: a test's, which moves only when the test advances it.
public protocol ManualTimeSource: AnyObject, Sendable {
    /// The current instant.
    var now: ContinuousClock.Instant { get }
    /// Returns once the time is `deadline` or later; throws `CancellationError` when the task is cancelled.
    func sleep(until deadline: ContinuousClock.Instant) async throws
    /// Whether ``LoopTimer``s on this clock fire when its time reaches them (a test clock), rather than in real
    /// time (false unless the source says so).
    var drivesTimers: Bool { get }
    /// Arms `timer` to fire `delay` from now on this clock (and every `delay` after, if `repeating`),
    /// replacing its earlier schedule. Called only when ``drivesTimers``.
    @LoopActor func arm(_ timer: LoopTimer, after delay: Duration, repeating: Bool)
    /// Disarms `timer`; nothing when it is not armed.
    @LoopActor func disarm(_ timer: LoopTimer)
    /// Whether `timer` is armed on this clock.
    @LoopActor func isArmed(_ timer: LoopTimer) -> Bool
}

extension ManualTimeSource {
    /// Timers run in real time.
    public var drivesTimers: Bool { false }
    public func arm(_ timer: LoopTimer, after delay: Duration, repeating: Bool) {}
    public func disarm(_ timer: LoopTimer) {}
    public func isArmed(_ timer: LoopTimer) -> Bool { false }
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
