import Testing

@testable import ViewModels

/// `CopyOnWrite` keeps a part of a state in a box its copies share: they must still behave as independent values.
@Suite("CopyOnWrite")
struct CopyOnWriteTests {
    struct Holder: Equatable {
        @CopyOnWrite var list: [String]
    }

    @Test func aChangeInPlaceOrWholeLeavesTheCopiesAsTheyWere() {
        var original = Holder(list: ["a"])
        let copy = original
        #expect(copy == original)

        original.list.append("b")
        #expect(copy.list == ["a"])
        #expect(original.list == ["a", "b"])
        #expect(copy != original)

        let second = original
        original.list = ["c"]
        #expect(second.list == ["a", "b"])
        #expect(original.list == ["c"])

        // A box of its own is changed in place, and assigned in place.
        original.list.append("d")
        original.list = ["e"]
        #expect(original.list == ["e"])
        #expect(second.list == ["a", "b"] && copy.list == ["a"])
    }

    @Test func equalValuesInSeparateBoxesAreEqual() {
        let one = Holder(list: ["a", "b"])
        var other = Holder(list: ["a"])
        #expect(one != other)
        other.list.append("b")
        #expect(one == other)
    }
}
