import Testing

@testable import Sessions

/// The table of sessions hibernated here: what a purge forgets (only what is due, by the deadline each was
/// inserted with last) and what stays counted against a subject.
@Suite("HibernatedSessions")
struct HibernatedSessionsTests {
    let epoch = ContinuousClock.now

    func at(_ seconds: Int) -> ContinuousClock.Instant { epoch + .seconds(seconds) }

    @Test func aPurgeForgetsOnlyTheSessionsDueByTheirLatestDeadline() {
        var table = HibernatedSessions(epoch: epoch)
        table.insert("a", subject: "alice", until: at(10))
        table.insert("b", subject: "alice", until: at(10))
        table.insert("c", subject: nil, until: at(20))
        table.insert("d", subject: "bob", until: at(30))
        #expect(table.count == 4)
        #expect(table.count(ownedBy: "alice") == 2)

        // "b" woke here; "a" woke and hibernated again, due later now.
        let woke = table.remove("b")
        let again = table.remove("b")
        #expect(woke && !again, "gone once")
        table.insert("a", subject: "alice", until: at(25))
        #expect(table.count == 3)
        #expect(table.count(ownedBy: "alice") == 1)

        table.purge(now: at(5))
        #expect(table.count == 3, "nothing due yet")
        table.purge(now: at(12))
        #expect(table.count == 3, "\"a\"'s first deadline passed, but it is due at 25 now; \"b\" had woken")
        #expect(table.count(ownedBy: "alice") == 1)
        table.purge(now: at(21))
        #expect(table.count == 2, "\"c\" expired")
        table.purge(now: at(26))
        #expect(table.count == 1)
        #expect(table.count(ownedBy: "alice") == 0, "\"a\" expired: alice has none left")
        #expect(table.count(ownedBy: "bob") == 1)
        table.purge(now: at(31))
        #expect(table.count == 0)
        #expect(table.count(ownedBy: "bob") == 0)

        // Empty, then used again.
        table.insert("e", subject: "bob", until: at(40))
        table.purge(now: at(35))
        #expect(table.count == 1 && table.count(ownedBy: "bob") == 1)
        table.purge(now: at(41))
        #expect(table.count == 0)
    }
}
