import EventLoop
import JSON
import Sessions
import Testing
import VMHostTesting
import ViewModels

@testable import Journal

/// The sessions changed in one turn of the loop are written by one call of the write script, each fenced on its
/// own: one owned by another process is handed over, the others of the call are written and shown.
@Suite("Journal: one write call per turn", .serialized)
struct JournalBatchTests {
    /// Sets the search text of each of `ids` on `app`, all in one turn of the loop (no command, no await).
    @LoopActor
    static func setTexts(_ app: TestApplication, _ ids: [String], to text: String) throws {
        for id in ids {
            let session = try #require(app.application.sessions.session(id))
            let search = try #require(session.slot("search")?.model as? SearchViewModel)
            search.setText(text)
        }
    }

    @LoopActor
    static func statistics(_ app: TestApplication) -> JournalStatistics {
        app.application.journal?.statistics ?? JournalStatistics()
    }

    @Test func oneCallWritesEverySessionOfATurnAndFencesEachOnItsOwn() async throws {
        try await withTwoJournaledApps { redis, first, second in
            var ids: [String] = []
            for _ in 0..<3 { ids.append(try await first.createSession()) }
            // The second application takes the middle session over: the first may no longer write it.
            #expect(try await second.client.get("/v1/sessions/\(ids[1])").status == 200)
            let versions = try await ids.asyncMap { id in
                try #require(try await first.client.get("/v1/sessions/\(id)/search").json?["version"]?.intValue)
            }
            let before = await Self.statistics(first)

            try await Self.setTexts(first, ids, to: "one turn")

            #expect(
                await eventually {
                    let now = await Self.statistics(first)
                    return now.writes == before.writes + 2 && now.handovers == before.handovers + 1
                })
            let after = await Self.statistics(first)
            #expect(after.writeCalls == before.writeCalls + 1, "three sessions, one call")
            #expect(after.writes == before.writes + 2, "the two owned here written")
            #expect(after.writeFailures == before.writeFailures)
            for index in [0, 2] {
                #expect(try redis.journaled(ids[index], "search")?.state["searchText"] == "one turn")
                let shown = try await first.client.get("/v1/sessions/\(ids[index])/search").json
                #expect(shown?["searchText"] == "one turn")
                #expect(shown?["version"]?.intValue == versions[index] + 1)
            }
            // The fenced one: Redis keeps the second application's, which still serves it.
            #expect(try redis.journaled(ids[1], "search")?.state["searchText"] == "")
            #expect(try await second.client.get("/v1/sessions/\(ids[1])/search").json?["searchText"] == "")
        }
    }

    @Test func moreSessionsThanOneCallTakesGoInFurtherCalls() async throws {
        try await withTwoJournaledApps { redis, first, _ in
            let count = JournalWriteBatch.maximumSessions + 1
            var ids: [String] = []
            for _ in 0..<count { ids.append(try await first.createSession()) }
            let before = await Self.statistics(first)

            try await Self.setTexts(first, ids, to: "many")

            #expect(await eventually { await Self.statistics(first).writes == before.writes + count })
            let after = await Self.statistics(first)
            #expect(after.writeCalls == before.writeCalls + 2, "a full call of 64, then one of 1")
            #expect(after.writeFailures == before.writeFailures && after.handovers == before.handovers)
            for id in [ids[0], ids[count / 2], ids[count - 1]] {
                #expect(try redis.journaled(id, "search")?.state["searchText"] == "many")
            }
        }
    }
}
