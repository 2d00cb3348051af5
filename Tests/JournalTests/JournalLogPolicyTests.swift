import Sessions
import Testing

@testable import Journal

/// The journal's decisions as values, without Redis: how many patches a view model's list keeps (its replay
/// ring, bounded in count and bytes like the process's), when a write cuts the list back to it, and when a write is
/// a checkpoint.
@Suite("Journal: log policy")
struct JournalLogPolicyTests {
    /// Feeds `sizes` (newest first) and returns the count kept.
    static func kept(_ sizes: [Int], capacity: Int = 64, byteLimit: Int = 8192) -> Int {
        var ring = ReplayRingCount(capacity: capacity, byteLimit: byteLimit)
        for size in sizes { ring.add(size) }
        return ring.count
    }

    @Test func theRingIsBoundedInBytesAndInCount() {
        #expect(Self.kept(Array(repeating: 100, count: 10)) == 10)
        #expect(Self.kept(Array(repeating: 100, count: 100)) == 64, "count bound")
        #expect(Self.kept(Array(repeating: 3000, count: 5)) == 2, "8,192 bytes hold two patches of 3,000")
        #expect(Self.kept([8192]) == 1, "exactly the bound fits")
        #expect(Self.kept([9000, 100, 100]) == 0, "a patch over the bound on its own empties the ring")
        #expect(Self.kept([100, 9000, 100, 100]) == 1, "nothing older than a patch that did not fit")
        #expect(Self.kept([100, 100], capacity: 0) == 0, "no ring")
        var ring = ReplayRingCount(capacity: 4, byteLimit: 1000)
        let added = [ring.add(600), ring.add(500), ring.add(10)]
        #expect(added == [true, false, false], "closed: a smaller older patch is not kept either")
        #expect(ring.count == 1 && ring.bytes == 600 && ring.isClosed)
        // A whole ring at once (its byte total within the bound): as many as the count bound leaves room for.
        var whole = ReplayRingCount(capacity: 64, byteLimit: 8192)
        whole.add(100)
        whole.add(count: 70, bytes: 7000)
        #expect(whole.count == 64 && whole.isClosed)
        var room = ReplayRingCount(capacity: 64, byteLimit: 8192)
        room.add(count: 10, bytes: 1000)
        #expect(room.count == 10 && !room.isClosed)
        #expect(room.add(7192) && !room.add(1))
    }

    static let mark = JournalMark(version: 10)

    @Test func aCheckpointIsDueWithoutAMarkAfterAGapAndPastTheBounds() throws {
        let policy = JournalLogPolicy(checkpointPatches: 4, checkpointBytes: 1000)
        #expect(
            policy.markAfterWrite(nil, previous: 10, latest: 11, newPatches: 1, newBytes: 50, extrasBytes: 20) == nil,
            "no checkpoint known to this process (after a takeover)")
        #expect(
            policy.markAfterWrite(Self.mark, previous: 10, latest: 13, newPatches: 2, newBytes: 50, extrasBytes: 20)
                == nil, "a version not in this write: the log would have a hole")
        let counted = try #require(
            policy.markAfterWrite(Self.mark, previous: 10, latest: 12, newPatches: 2, newBytes: 300, extrasBytes: 20))
        #expect(counted.version == 10 && counted.patches == 2 && counted.bytes == 300)
        #expect(
            policy.markAfterWrite(counted, previous: 12, latest: 14, newPatches: 2, newBytes: 100, extrasBytes: 20)?
                .patches == 4, "at the patch bound")
        #expect(
            policy.markAfterWrite(counted, previous: 12, latest: 15, newPatches: 3, newBytes: 100, extrasBytes: 20)
                == nil, "past the patch bound")
        #expect(
            policy.markAfterWrite(counted, previous: 12, latest: 13, newPatches: 1, newBytes: 600, extrasBytes: 101)
                == nil, "past the byte bound: patches since the checkpoint and the current extras")
        #expect(
            policy.markAfterWrite(counted, previous: 12, latest: 13, newPatches: 1, newBytes: 600, extrasBytes: 100)?
                .bytes == 900, "the extras are not accumulated: they replace the previous ones")
    }

    @Test func aListIsCutBackPastAQuarterMoreEntriesOrPastItsByteSlack() {
        let policy = JournalLogPolicy()
        #expect(policy.listSlackBytes == 1024 && policy.listLimit(keep: 64) == 80 && policy.listLimit(keep: 3) == 3)
        #expect(!policy.trimsList(length: 64, keep: 64, excessBytes: 5000), "nothing more than it keeps")
        #expect(!policy.trimsList(length: 80, keep: 64, excessBytes: 1024), "a quarter more, within the bytes")
        #expect(policy.trimsList(length: 81, keep: 64, excessBytes: 0), "past a quarter more")
        #expect(policy.trimsList(length: 66, keep: 64, excessBytes: 1025), "past the bytes: a loaded page's patches")
        #expect(policy.trimsList(length: 4, keep: 3, excessBytes: 10), "a ring of three large patches: no slack")
        #expect(!JournalLogPolicy(listSlackBytes: 4096).trimsList(length: 66, keep: 64, excessBytes: 1025))
    }
}
