import Sessions
import Testing

@Suite("Session ids")
struct SessionIDTests {
    @Test func aTaggedIdIsTheRandomPartAndTheNode() {
        let id = SessionID.generate(nodeTag: "n1")
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 2 && parts[0].utf8.count == 22 && parts[1] == "n1")
        #expect(SessionID.isWellFormed(id))
        #expect(SessionID.generate(nodeTag: "n1") != id, "the random part is fresh")
    }

    @Test func aTagThatDoesNotFitAPathSegmentIsLeftOut() {
        for tag in [nil, "", "127.0.0.1:8080", "a/b", "é", String(repeating: "x", count: 33)] {
            let id = SessionID.generate(nodeTag: tag)
            #expect(id.utf8.count == 22 && SessionID.isWellFormed(id), "\(tag ?? "nil")")
        }
        #expect(SessionID.isValidNodeTag("node-7_B") && SessionID.isValidNodeTag(String(repeating: "x", count: 32)))
    }

    @Test func onlyTheTwoShapesAreWellFormed() {
        let random = "Hk3v0yQW5kq1m2Zr7c0b3A"
        #expect(SessionID.isWellFormed(random))
        #expect(SessionID.isWellFormed(random + ".n1"))
        for bad in [
            random + ".", random + "..n1", random + ".n1.n2", random + "n1", String(random.dropLast()), random + ".n/1",
            random + "." + String(repeating: "x", count: 33), "Hk3v0yQW5kq1m2Zr7c0b3!.n1", "",
        ] {
            #expect(!SessionID.isWellFormed(bad), "\(bad)")
        }
    }
}
