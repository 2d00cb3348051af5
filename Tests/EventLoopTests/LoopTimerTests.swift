import EventLoop
import Testing
import VMHostTesting

@LoopActor
@Suite("LoopTimer")
struct LoopTimerTests {
    @Test func fireSoonRunsInThisTurnOfTheLoopBeforeATimerDueNow() async throws {
        var order: [String] = []
        let nextTurn = LoopTimer { order.append("zero delay") }
        let thisTurn = LoopTimer { order.append("fire soon") }
        let first = LoopTimer { order.append("fired soon first") }
        nextTurn.schedule(after: .zero)
        first.fireSoon()
        thisTurn.fireSoon()
        #expect(thisTurn.isScheduled && first.isScheduled && nextTurn.isScheduled)
        _ = await eventually(timeout: .seconds(5), every: .milliseconds(1)) { order.count == 3 }
        #expect(order == ["fired soon first", "fire soon", "zero delay"])
        #expect(!thisTurn.isScheduled && !first.isScheduled && !nextTurn.isScheduled)
    }

    @Test func fireSoonReplacesAScheduleAndCancelStopsIt() async throws {
        var fired = 0
        let timer = LoopTimer { fired += 1 }
        timer.schedule(after: .seconds(60))
        timer.fireSoon()
        _ = await eventually(timeout: .seconds(5), every: .milliseconds(1)) { fired == 1 }
        #expect(fired == 1 && !timer.isScheduled, "fired once, soon; the 60 s schedule is gone")

        timer.fireSoon()
        timer.cancel()
        #expect(!timer.isScheduled)
        let canary = LoopTimer { fired += 10 }
        canary.schedule(after: .milliseconds(20))
        _ = await eventually(timeout: .seconds(5), every: .milliseconds(1)) { fired >= 10 }
        #expect(fired == 11, "the cancelled firing never came")
    }
}

@LoopActor
@Suite("LoopTimer on a test clock")
struct LoopTimerOnATestClockTests {
    @Test func aTimerFiresWhenTheClockPassesItAndARepeatingOneOncePerPeriod() {
        let clock = TestClock()
        var once = 0
        var every = 0
        let single = LoopTimer(clock: clock.clock) { once += 1 }
        let repeating = LoopTimer(clock: clock.clock, repeats: true) { every += 1 }
        single.schedule(after: .seconds(10))
        repeating.schedule(after: .seconds(3))
        #expect(single.isScheduled && repeating.isScheduled && clock.armedTimerCount == 2)

        clock.advance(by: .seconds(9))
        #expect(once == 0 && every == 3, "the repeating one at 3, 6 and 9 s; the other not yet")
        clock.advance(by: .seconds(1))
        #expect(once == 1 && !single.isScheduled, "fired once at 10 s, then disarmed")
        clock.advance(by: .seconds(60))
        #expect(once == 1 && every == 23 && repeating.isScheduled)
    }

    @Test func cancellingOrReleasingATimerDisarmsIt() {
        let clock = TestClock()
        var fired = 0
        let cancelled = LoopTimer(clock: clock.clock) { fired += 1 }
        cancelled.schedule(after: .seconds(1))
        cancelled.cancel()
        #expect(!cancelled.isScheduled)
        do {
            let released = LoopTimer(clock: clock.clock) { fired += 1 }
            released.schedule(after: .seconds(1))
        }
        #expect(clock.armedTimerCount == 0)
        clock.advance(by: .seconds(5))
        #expect(fired == 0)
    }

    @Test func aRescheduleReplacesTheEarlierOne() {
        let clock = TestClock()
        var fired = 0
        let timer = LoopTimer(clock: clock.clock) { fired += 1 }
        timer.schedule(after: .seconds(1))
        timer.schedule(after: .seconds(5))
        clock.advance(by: .seconds(4))
        #expect(fired == 0)
        clock.advance(by: .seconds(1))
        #expect(fired == 1)
    }
}
