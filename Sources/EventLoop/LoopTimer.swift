import CLibevent

/// A one-shot or repeating libevent timer on the loop.
///
/// The timer holds its action strongly and the libevent event weakly; releasing the timer cancels it.
/// On a test clock (a ``LoopClock`` whose ``ManualTimeSource`` drives timers) its schedule is the clock's:
/// it fires when the test moves the clock past it, not in real time.
@LoopActor
public final class LoopTimer {
    private var event: OpaquePointer?
    private let action: @LoopActor () -> Void
    private let repeats: Bool
    /// The test clock that times this timer; nil for libevent's real time.
    private let manual: (any ManualTimeSource)?

    /// Creates a stopped timer.
    /// - Parameters:
    ///   - clock: the clock its schedule follows (real time unless a test clock drives timers).
    ///   - repeats: fire every interval until cancelled, instead of once.
    ///   - action: runs on the loop each time the timer fires.
    public init(clock: LoopClock = LoopClock(), repeats: Bool = false, action: @escaping @LoopActor () -> Void) {
        self.action = action
        self.repeats = repeats
        manual = clock.source.flatMap { $0.drivesTimers ? $0 : nil }
        let context = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(EventLoop.shared.base, -1, repeats ? Int16(EV_PERSIST) : 0, loopTimerFired, context)
    }

    /// Runs the action (libevent's callback, or a test clock that reached the timer).
    package func fire() {
        action()
    }

    /// Arms the timer to fire after `delay` (and then every `delay` if repeating), replacing any earlier schedule.
    public func schedule(after delay: Duration) {
        if let manual {
            manual.arm(self, after: delay, repeating: repeats)
            return
        }
        var tv = timeval(delay)
        event_add(event, &tv)
    }

    /// Fires the timer in this turn of the loop, after the events already ready in it (`event_active`): a
    /// point at which everything this turn's events did is done, without waiting for the loop's next turn.
    /// Replaces any schedule; ``isScheduled`` until it runs.
    public func fireSoon() {
        manual?.disarm(self)
        event_del(event)
        event_active(event, Int32(EV_TIMEOUT), 1)
    }

    /// Stops the timer; a pending firing does not happen.
    public func cancel() {
        manual?.disarm(self)
        event_del(event)
    }

    /// Whether the timer is armed.
    public var isScheduled: Bool {
        if let manual, manual.isArmed(self) { return true }
        return event_pending(event, Int16(EV_TIMEOUT), nil) != 0
    }

    isolated deinit {
        manual?.disarm(self)
        if let event { event_free(event) }
    }
}

/// libevent's callback of every timer. NB: a function outside the loop's isolation rather than a closure written
/// in `init`: a closure written in an isolated initialiser is isolated itself, and one that C calls then checks
/// its executor on every call (docs/performance.md, "Receipts"); `LoopActor.assumeIsolated` checks the thread.
private func loopTimerFired(_ fd: Int32, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    let timer = Unmanaged<LoopTimer>.fromOpaque(context).takeUnretainedValue()
    LoopActor.assumeIsolated { timer.fire() }
}

extension timeval {
    /// A `timeval` for a non-negative duration.
    public init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let clamped = max(seconds, 0)
        self.init(tv_sec: Int(clamped), tv_usec: clamped < 0 ? 0 : Int(attoseconds / 1_000_000_000_000))
    }
}
