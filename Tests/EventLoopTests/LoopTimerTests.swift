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
