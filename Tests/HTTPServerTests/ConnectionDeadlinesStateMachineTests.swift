import Testing

@testable import HTTPServer

/// ``ConnectionDeadlines/StateMachine`` on its own: every event and every branch of a sweep, with instants
/// made by hand (no socket, no clock, no loop).
@Suite("Connection deadlines: state machine")
struct ConnectionDeadlinesStateMachineTests {
    typealias Machine = ConnectionDeadlines.StateMachine
    let start = ContinuousClock.now
    let timeout = Duration.seconds(10)

    func at(_ offset: Duration) -> ContinuousClock.Instant { start + offset }

    /// A sweep whose socket is never asked (the test fails if it is).
    func sweep(
        _ machine: inout Machine, at offset: Duration, waiting: Int = 0, draining: Bool = false
    ) -> Machine.SweepAction {
        machine.sweep(at: at(offset), outputWaiting: waiting, timeout: timeout, draining: draining) {
            Issue.record("the socket is asked only from the second pass with output stalled")
            return false
        }
    }

    @Test func anAcceptedConnectionsFirstHeadIsDueAfterTheTimeout() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        #expect(machine.headDeadline == at(.seconds(10)) && machine.writeTimeout == timeout)
        #expect(sweep(&machine, at: .seconds(9)) == .none)
        #expect(sweep(&machine, at: .seconds(10)) == .close, "due exactly at the deadline")
        #expect(
            machine.headDeadline == at(.seconds(20)), "a closed connection gets a fresh deadline, not a second close")
        #expect(sweep(&machine, at: .seconds(11)) == .none)
    }

    @Test func aRequestBeingServedHasNoHeadDeadline() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        machine.requestArrived()
        #expect(machine.headDeadline == nil)
        #expect(sweep(&machine, at: .seconds(3600)) == .none, "a slow handler is not a slow client")
    }

    @Test func aResponseStartsTheNextHeadsDeadlineOrMakesItDueWhileDraining() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        machine.requestArrived()
        machine.responseSent(at: at(.seconds(5)), timeout: timeout, draining: false)
        #expect(machine.headDeadline == at(.seconds(15)))
        #expect(sweep(&machine, at: .seconds(14)) == .none)
        #expect(sweep(&machine, at: .seconds(15)) == .close)

        var draining = Machine(acceptedAt: start, timeout: timeout)
        draining.requestArrived()
        draining.responseSent(at: at(.seconds(5)), timeout: timeout, draining: true)
        #expect(draining.headDeadline == at(.seconds(5)), "nothing to wait for while draining")
        #expect(sweep(&draining, at: .seconds(5), draining: true) == .close)
    }

    @Test func drainingMakesAWaitingConnectionDueAndLeavesAServedOneAlone() {
        var waiting = Machine(acceptedAt: start, timeout: timeout)
        waiting.drainStarted(at: at(.seconds(1)))
        #expect(waiting.headDeadline == at(.seconds(1)))
        #expect(sweep(&waiting, at: .seconds(1), draining: true) == .close)

        var served = Machine(acceptedAt: start, timeout: timeout)
        served.requestArrived()
        served.drainStarted(at: at(.seconds(1)))
        #expect(served.headDeadline == nil, "its response is still to go out")
        #expect(sweep(&served, at: .seconds(60), draining: true) == .none)
    }

    @Test func aLateHeadWhileAResponseIsStillGoingOutMovesOnUnlessDraining() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        #expect(sweep(&machine, at: .seconds(10), waiting: 100) == .none, "bytes still going out")
        #expect(machine.headDeadline == at(.seconds(20)), "the deadline moves on")

        var draining = Machine(acceptedAt: start, timeout: timeout)
        draining.drainStarted(at: at(.seconds(1)))
        #expect(sweep(&draining, at: .seconds(1), waiting: 100, draining: true) == .none)
        #expect(draining.headDeadline == at(.seconds(1)), "while draining it stays due")
        #expect(sweep(&draining, at: .seconds(2), waiting: 0, draining: true) == .close, "closed once the bytes went")
    }

    @Test func outputThatStallsWhileTheSocketTakesNoMoreClosesAfterTheWriteTimeout() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        machine.requestArrived()
        #expect(sweep(&machine, at: .seconds(1), waiting: 500) == .none)
        #expect(machine.outputStalledSince == at(.seconds(1)) && machine.outputWaiting == 500)
        var asked = 0
        let full = { () -> Bool in
            asked += 1
            return false
        }
        #expect(
            machine.sweep(
                at: at(.seconds(5)), outputWaiting: 500, timeout: timeout, draining: false, socketAcceptsOutput: full)
                == .none)
        #expect(
            machine.sweep(
                at: at(.seconds(11)), outputWaiting: 600, timeout: timeout, draining: false, socketAcceptsOutput: full)
                == .close)
        #expect(asked == 2, "the socket is asked at each pass after the first")
        #expect(machine.outputStalledSince == nil && machine.outputWaiting == 600)
    }

    @Test func outputThatShrinksOrASocketThatTakesMoreIsNotStalled() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        machine.requestArrived()
        #expect(sweep(&machine, at: .seconds(1), waiting: 500) == .none)
        #expect(sweep(&machine, at: .seconds(2), waiting: 400) == .none, "fewer bytes: the client reads")
        #expect(machine.outputStalledSince == nil)

        #expect(sweep(&machine, at: .seconds(3), waiting: 400) == .none)
        #expect(machine.outputStalledSince == at(.seconds(3)))
        let accepts = machine.sweep(
            at: at(.seconds(30)), outputWaiting: 400, timeout: timeout, draining: false, socketAcceptsOutput: { true })
        #expect(accepts == .none, "bytes written this turn wait for the next: the socket takes more")
        #expect(machine.outputStalledSince == nil)

        #expect(sweep(&machine, at: .seconds(31), waiting: 0) == .none)
        #expect(machine.outputStalledSince == nil && machine.outputWaiting == 0)
    }

    @Test func aStreamsOutputMayWaitForTheStreamTimeoutAndAResponseRestoresTheTimeout() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        machine.requestArrived()
        machine.streamStarted(streamTimeout: .seconds(100))
        #expect(machine.writeTimeout == .seconds(100))
        #expect(sweep(&machine, at: .seconds(1), waiting: 500) == .none)
        let stalled = machine.sweep(
            at: at(.seconds(50)), outputWaiting: 500, timeout: timeout, draining: false, socketAcceptsOutput: { false })
        #expect(stalled == .none, "past the idle timeout, within the stream timeout")
        let gone = machine.sweep(
            at: at(.seconds(101)), outputWaiting: 500, timeout: timeout, draining: false, socketAcceptsOutput: { false }
        )
        #expect(gone == .close)

        machine.responseSent(at: at(.seconds(200)), timeout: timeout, draining: false)
        #expect(machine.writeTimeout == timeout && machine.headDeadline == at(.seconds(210)))
    }

    @Test func aClosedConnectionHasNoDeadline() {
        var machine = Machine(acceptedAt: start, timeout: timeout)
        machine.closed()
        #expect(machine.headDeadline == nil)
        #expect(sweep(&machine, at: .seconds(3600)) == .none)
    }
}
