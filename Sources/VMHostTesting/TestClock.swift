import EventLoop
import Synchronization

/// A clock that only moves when the test says so: debounce and timeouts without real sleeping.
///
/// It is the time of a manual ``EventLoop/LoopClock`` (``clock``), the one clock type the server reads, so a
/// test hands ``clock`` to whatever it builds (a view model, an application) and moves it with
/// ``advance(by:)``: the sleepers and the ``EventLoop/LoopTimer``s on it whose time has come wake then (timers
/// on the loop: at once when the test runs there, else on the loop's next turn).
public final class TestClock: ManualTimeSource {
    private struct Sleeper {
        var id: Int
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: ContinuousClock.Instant
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Mutex<State>
    private let timers = ManualTimers()

    /// A clock stopped at the real time of its creation, with nobody sleeping.
    public init() {
        state = Mutex(State(now: ContinuousClock.now))
    }

    /// The server's clock type, with this clock's time and sleeps.
    public var clock: LoopClock { LoopClock(source: self) }

    public var now: ContinuousClock.Instant { state.withLock { $0.now } }

    /// Number of tasks sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state in
                    if deadline <= state.now || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline has come (in deadline order), and firing every
    /// timer on the clock whose time has come (a repeating one once per period passed).
    public func advance(by duration: Duration) {
        let (due, now) = state.withLock { state -> ([Sleeper], ContinuousClock.Instant) in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return (due, now)
        }
        for sleeper in due { sleeper.continuation.resume() }
        let timers = timers
        if EventLoop.shared.isOnLoopThread {
            LoopActor.assumeIsolated { timers.fire(upTo: now) }
        } else {
            Task { @LoopActor in timers.fire(upTo: now) }
        }
    }

    // MARK: Timers

    public var drivesTimers: Bool { true }

    /// Number of timers armed on this clock.
    @LoopActor public var armedTimerCount: Int { timers.count }

    @LoopActor public func arm(_ timer: LoopTimer, after delay: Duration, repeating: Bool) {
        timers.arm(timer, at: now + delay, every: repeating ? delay : nil)
    }

    @LoopActor public func disarm(_ timer: LoopTimer) {
        timers.disarm(timer)
    }

    @LoopActor public func isArmed(_ timer: LoopTimer) -> Bool {
        timers.isArmed(timer)
    }
}

/// The timers armed on a ``TestClock``, on the loop. Each is held weakly: releasing a timer cancels it.
@LoopActor
private final class ManualTimers {
    private struct Entry {
        weak var timer: LoopTimer?
        var deadline: ContinuousClock.Instant
        var period: Duration?
    }

    private var entries: [ObjectIdentifier: Entry] = [:]

    var count: Int { entries.values.filter { $0.timer != nil }.count }

    func arm(_ timer: LoopTimer, at deadline: ContinuousClock.Instant, every period: Duration?) {
        entries[ObjectIdentifier(timer)] = Entry(timer: timer, deadline: deadline, period: period)
    }

    func disarm(_ timer: LoopTimer) {
        entries[ObjectIdentifier(timer)] = nil
    }

    func isArmed(_ timer: LoopTimer) -> Bool {
        entries[ObjectIdentifier(timer)] != nil
    }

    /// Fires every timer due at `now`, earliest first; a repeating one again for each period passed.
    func fire(upTo now: ContinuousClock.Instant) {
        // NB: bounded, so a repeating timer with a zero period cannot spin forever.
        for _ in 0..<100_000 {
            guard
                let (key, entry) = entries.filter({ $0.value.deadline <= now }).min(by: {
                    $0.value.deadline < $1.value.deadline
                })
            else { return }
            guard let timer = entry.timer else {
                entries[key] = nil
                continue
            }
            if let period = entry.period, period > .zero {
                entries[key]?.deadline = entry.deadline + period
            } else {
                entries[key] = nil
            }
            timer.fire()
        }
    }
}
