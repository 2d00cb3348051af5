import EventStreams
import Testing

@Suite("Slow-reader state machine")
struct SlowReaderStateMachineTests {
    @Test func aRefusedPartIsDroppedUntilResynchronisedInOrder() {
        var machine = SlowReaderStateMachine(parts: ["search", "products", "photo"])
        #expect(machine.changed("search") == .write)
        #expect(machine.partsToResync() == [])
        machine.writeRefused("photo")
        machine.writeRefused("search")
        #expect(machine.changed("search") == .drop)
        #expect(machine.changed("products") == .write)
        #expect(machine.partsToResync() == ["search", "photo"])
        machine.resynced("search")
        #expect(machine.changed("search") == .write)
        #expect(machine.partsToResync() == ["photo"])
    }

    @Test func anEndedStreamWritesNothingAndEndsOnce() {
        var machine = SlowReaderStateMachine(parts: ["counter"])
        machine.writeRefused("counter")
        let first = machine.end()
        let second = machine.end()
        #expect(first && !second)
        #expect(machine.changed("counter") == .drop)
        #expect(machine.partsToResync() == [])
    }
}
