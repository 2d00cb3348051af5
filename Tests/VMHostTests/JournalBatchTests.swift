import EventLoop
import FakeUpstream
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

    /// Each session changes two view models (the search text, and a products refresh that the upstream keeps
    /// waiting): a write the script takes.
    @Test func oneCallWritesEverySessionOfATurnAndFencesEachOnItsOwn() async throws {
        try await withTwoJournaledApps { redis, first, second in
            var ids: [String] = []
            for _ in 0..<3 { ids.append(try await first.createSession()) }
            let versions = try await ids.asyncMap { id in
                try #require(try await first.client.get("/v1/sessions/\(id)/search").json?["version"]?.intValue)
            }
            // The second application takes the middle session over: the first may no longer write it.
            // NB: after the reads above: a read of it here would take it back once the first application's expiry
            // refresh learnt that it lost it (JournalFormatTests' CI failure).
            #expect(try await second.client.get("/v1/sessions/\(ids[1])").status == 200)
            await first.setUpstream(FakeUpstreamBehavior(fault: .hang))
            let before = await Self.statistics(first)

            try await Self.changeBoth(first, ids, text: "one turn")

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

    /// Ordinary updates are plain commands, fenced by the epoch in the keys' names: a command that changes the
    /// state alone is one `RPUSHX` of its patch, sent without a transaction (one step by itself); the extras (what the state's JSON does
    /// not show) are set only when they change; a process whose session was taken over pushes nothing, creates no
    /// key under the old epoch, and hands the session over.
    @Test func ordinaryUpdatesArePlainCommandsFencedByTheEpochsKeys() async throws {
        try await withTwoJournaledApps { redis, first, second in
            let kept = try await first.createSession()
            let lost = try await first.createSession()
            // The first command of a session makes its view model's list (`RPUSH`, fenced by the owner read with it).
            for id in [kept, lost] { try await JournalFormatTests.type(first, id, count: 2, prefix: "warm") }
            let pushes = try redis.calls(of: "rpushx")
            let sets = try redis.calls(of: "set")
            let transactions = try redis.calls(of: "exec")
            let scripts = try redis.calls(of: "evalsha")
            try await JournalFormatTests.type(first, kept, count: 3, prefix: "fast")
            #expect(try redis.calls(of: "rpushx") == pushes + 3, "one push a command")
            #expect(try redis.calls(of: "set") == sets, "typing leaves the extras as they were")
            #expect(try redis.calls(of: "exec") == transactions, "a push alone is one step: no transaction")
            #expect(try redis.calls(of: "multi") == transactions)
            #expect(try redis.calls(of: "evalsha") == scripts, "no script")
            #expect(try redis.journaled(kept, "search")?.state["searchText"] == "fast 2")
            #expect(try redis.journaledSnapshot(kept, "search")?["state"]?["searchText"] == "fast 2")
            // An automatic search pending is in the extras: they are set with the push, and again once it is not.
            let text = try await first.client.post(
                "/v1/sessions/\(kept)/search/text", json: ["text": "ab", "autoSearch": true])
            #expect(text.status == 200)
            #expect(try redis.calls(of: "set") == sets + 1)
            #expect(try redis.calls(of: "exec") == transactions + 1, "the push and the extras in one transaction")
            #expect(try redis.journaledSnapshot(kept, "search")?["debouncePending"] == true)
            try await JournalFormatTests.type(first, kept, count: 1, prefix: "typed")
            #expect(try redis.calls(of: "set") == sets + 2)
            #expect(try redis.calls(of: "exec") == transactions + 2)
            #expect(try redis.journaledSnapshot(kept, "search")?["debouncePending"] == false)
            #expect(try redis.calls(of: "rpushx") == pushes + 5)
            let deltaKey = JournalKeys(digest: SessionID.digest(kept)).delta("search", epoch: 1)
            #expect(try redis.bytes(["GET", deltaKey])?.first == JournalRecordCoding.extrasTag)
            let deltaExpiry = try #require(try redis.reply(["PTTL", deltaKey]).integer)
            #expect(deltaExpiry > 0 && deltaExpiry <= 30 * 60 * 1000, "PTTL \(deltaExpiry) ms")

            // The second application takes `lost` over: its keys move to epoch 2.
            #expect(try redis.epoch(lost) == 1)
            #expect(try await second.client.get("/v1/sessions/\(lost)").status == 200)
            #expect(try redis.epoch(lost) == 2)
            let before = await Self.statistics(first)
            let pushesBefore = try redis.calls(of: "rpushx")

            try await Self.setTexts(first, [kept, lost], to: "one turn")

            #expect(
                await eventually {
                    let now = await Self.statistics(first)
                    return now.writes == before.writes + 1 && now.handovers == before.handovers + 1
                })
            #expect(try redis.calls(of: "rpushx") == pushesBefore + 2, "both tried the fast path")
            #expect(try redis.journaled(kept, "search")?.state["searchText"] == "one turn")
            // Nothing of the stale write anywhere: no list or delta key under the old epoch (`RPUSHX` created none),
            // and Redis keeps the second's state.
            let keys = JournalKeys(digest: SessionID.digest(lost))
            #expect(
                try redis.reply(["EXISTS", keys.replay("search", epoch: 1), keys.delta("search", epoch: 1)])
                    == .integer(0))
            #expect(try redis.journaled(lost, "search")?.state["searchText"] == "warm 1")
            #expect(try await second.client.get("/v1/sessions/\(lost)/search").json?["searchText"] == "warm 1")
            #expect(await Self.statistics(first).writeFailures == before.writeFailures)
        }
    }

    /// A new session's first write is two plain commands in the turn's transaction, not the script: `HSET` of its
    /// hash (owner, epoch, each view model's checkpoint) and `PEXPIRE` (its id is fresh: nothing to fence, no key
    /// to delete). Its first command makes the view model's list (`RPUSH`, `PEXPIRE`, and `HGET` of the owner to
    /// fence it), the next ones push onto it; another process takes it over as any other.
    @Test func aNewSessionIsWrittenWithPlainCommands() async throws {
        try await withTwoJournaledApps { redis, first, second in
            let scripts = try redis.calls(of: "evalsha") + redis.calls(of: "eval")
            let (sets, expiries, deletes) = (
                try redis.calls(of: "hset"), try redis.calls(of: "pexpire"), try redis.calls(of: "del")
            )
            let id = try await first.createSession()
            #expect(try redis.calls(of: "evalsha") + redis.calls(of: "eval") == scripts, "no script")
            #expect(try redis.calls(of: "hset") == sets + 1 && redis.calls(of: "pexpire") == expiries + 1)
            #expect(try redis.calls(of: "del") == deletes, "a new session has no key to delete")
            let keys = JournalKeys(digest: SessionID.digest(id))
            guard case .array(let fields) = try redis.reply(["HKEYS", keys.hash]) else {
                Issue.record("no hash")
                return
            }
            #expect(Set(fields.compactMap(\.string)) == ["owner", "e", "vm:search", "vm:products", "vm:photo"])
            #expect(try redis.reply(["HGET", keys.hash, "owner"]).string?.hasPrefix("first/") == true)
            #expect(try redis.epoch(id) == 1)
            let expiry = try #require(try redis.reply(["PTTL", keys.hash]).integer)
            #expect(expiry > 0 && expiry <= 30 * 60 * 1000, "PTTL \(expiry) ms")
            let list = keys.replay("search", epoch: 1)
            #expect(try redis.reply(["EXISTS", list, keys.delta("search", epoch: 1)]) == .integer(0))
            #expect(try redis.journaled(id, "search")?.state["searchText"] == "")
            #expect(await Self.statistics(first).writeFailures == 0)

            let (pushes, reads) = (try redis.calls(of: "rpush"), try redis.calls(of: "hget"))
            try await JournalFormatTests.type(first, id, count: 3, prefix: "typed")
            #expect(try redis.calls(of: "evalsha") + redis.calls(of: "eval") == scripts, "still no script")
            #expect(try redis.calls(of: "rpush") == pushes + 1 && redis.calls(of: "hget") == reads + 1, "the list made")
            #expect(try redis.reply(["LLEN", list]) == .integer(3))
            let listExpiry = try #require(try redis.reply(["PTTL", list]).integer)
            #expect(listExpiry > 0 && listExpiry <= 30 * 60 * 1000, "PTTL \(listExpiry) ms")
            #expect(try redis.journaled(id, "search")?.state["searchText"] == "typed 2")
            let taken = try await second.client.get("/v1/sessions/\(id)/search")
            #expect(taken.status == 200 && taken.header("X-VMHost-Node") == "second")
            #expect(taken.json?["searchText"] == "typed 2")
            #expect(try redis.epoch(id) == 2)
        }
    }

    /// A view model's list made after another process took the session over lands under the old epoch, which
    /// nobody reads (and expires): the `HGET` in the same transaction shows the other owner, so the change is
    /// not shown, and the full write it then tries hands the session over.
    @Test func aListMadeAfterATakeoverIsFencedByTheOwnerReadWithIt() async throws {
        try await withTwoJournaledApps { redis, first, second in
            let id = try await first.createSession()
            #expect(try await second.client.get("/v1/sessions/\(id)/search").status == 200)
            #expect(try redis.epoch(id) == 2)
            let before = await Self.statistics(first)

            try await Self.setTexts(first, [id], to: "stale")

            #expect(await eventually { await Self.statistics(first).handovers == before.handovers + 1 })
            #expect(await Self.statistics(first).writes == before.writes, "nothing of it counted as written")
            let stale = JournalKeys(digest: SessionID.digest(id)).replay("search", epoch: 1)
            let expiry = try #require(try redis.reply(["PTTL", stale]).integer)
            #expect(expiry > 0 && expiry <= 30 * 60 * 1000, "the stale list expires: PTTL \(expiry) ms")
            #expect(try redis.journaled(id, "search")?.state["searchText"] == "")
            #expect(try await second.client.get("/v1/sessions/\(id)/search").json?["searchText"] == "")
        }
    }

    /// A session changed before its first write (here in the turn that created it) has patches to log: the script
    /// writes it in full, as any other full write.
    @Test func aSessionChangedBeforeItsFirstWriteIsWrittenByTheScript() async throws {
        try await withTwoJournaledApps { redis, first, second in
            let scripts = try redis.calls(of: "evalsha") + redis.calls(of: "eval")
            let id = try await Self.createAndChange(first, text: "at once")
            #expect(try await eventually { try redis.journaled(id, "search")?.state["searchText"] == "at once" })
            #expect(try redis.calls(of: "evalsha") + redis.calls(of: "eval") == scripts + 1)
            let keys = JournalKeys(digest: SessionID.digest(id))
            #expect(try redis.reply(["LLEN", keys.replay("search", epoch: 1)]) == .integer(1))
            let taken = try await second.client.get("/v1/sessions/\(id)/search")
            #expect(taken.status == 200 && taken.json?["searchText"] == "at once")
        }
    }

    @LoopActor
    static func createAndChange(_ app: TestApplication, text: String) throws -> String {
        let session = try app.application.sessions.create()
        let search = try #require(session.slot("search")?.model as? SearchViewModel)
        search.setText(text)
        return session.id
    }

    /// A write through the script (here one carrying two view models) pushes each one's new patches after those
    /// the fast path pushed, each version once and in order, and sets each one's extras; a takeover then reads
    /// the state, snapshot and replay the client saw.
    @Test func aScriptWriteAfterFastOnesKeepsTheLogInOrderAndSetsTheExtras() async throws {
        try await withTwoJournaledApps { redis, first, second in
            let id = try await first.createSession()
            // The first command makes the view model's list; the next three are pushed onto it.
            try await JournalFormatTests.type(first, id, count: 4, prefix: "push")
            let keys = JournalKeys(digest: SessionID.digest(id))
            let list = keys.replay("search", epoch: 1)
            let delta = keys.delta("search", epoch: 1)
            #expect(try redis.reply(["LLEN", list]) == .integer(4))

            let products = try #require(try await first.client.get("/v1/sessions/\(id)/products").json)
            let productsVersion = try #require(products["version"]?.intValue)
            try await Self.changeBoth(first, [id], text: "both")
            #expect(
                await eventually {
                    (try? redis.journaled(id, "products"))?.version ?? 0 > productsVersion
                        && (try? redis.reply(["LLEN", list])) == .integer(5)
                }, "the four, then the new one")
            #expect(
                try redis.bytes(["GET", delta])?.first == JournalRecordCoding.extrasTag, "the script set the extras")
            let shown = try #require(try await first.client.get("/v1/sessions/\(id)/search").json)
            let version = try #require(shown["version"]?.intValue)
            let journaled = try #require(try redis.journaled(id, "search"))
            #expect(journaled.version == version)
            #expect(journaled.replay.map(\.version) == Array((version - 4)...version), "each patch once, in order")
            #expect(try redis.journaledSnapshot(id, "search")?["state"]?["searchText"] == "both")

            // The products' refresh ends (a later version, written too) before the other application takes over.
            #expect(
                await eventually {
                    guard let shown = try? await first.client.get("/v1/sessions/\(id)/products").json,
                        shown["isRefreshing"] == false, let version = shown["version"]?.intValue
                    else { return false }
                    return (try? redis.journaled(id, "products"))?.version == version
                })
            let before = try #require(try await first.client.get("/v1/sessions/\(id)").json)
            let taken = try await second.client.get("/v1/sessions/\(id)")
            #expect(taken.status == 200)
            #expect(taken.json == before, "the same state, versions included")
            let stream = try await TestEventStream(
                port: second.port, path: "/v1/sessions/\(id)/search/events",
                headers: [("Last-Event-ID", "\(version - 4)")])
            for expected in (version - 3)...version {
                #expect(try await stream.next()?.id == "\(expected)", "its ring replays")
            }
        }
    }

    /// The expiry refresh of the sessions in use is one script call for up to 64 of them, each fenced on its own:
    /// one another process owns is handed over, one Redis lost is written in full, and the others' keys get the
    /// idle timeout as expiry again.
    @Test func oneCallRefreshesTheExpiryOfManySessionsEachFencedOnItsOwn() async throws {
        // NB: an 8 s idle timeout makes the journal refresh expiry every 2 s: a session read is refreshed within
        // 2 s, long before it expires in memory (which deletes its keys), even on a slow machine.
        try await withQuicklyRefreshingJournaledApp(idleTimeout: .seconds(8)) { redis, app in
            var ids: [String] = []
            for _ in 0..<70 { ids.append(try await app.createSession()) }
            let hash = { (id: String) in JournalKeys(digest: SessionID.digest(id)).hash }
            #expect(try await eventually { try redis.reply(["EXISTS", hash(ids[69])]) == .integer(1) })
            let (lost, taken) = (ids[0], ids[1])
            let refreshed = ids.dropFirst(2)
            try redis.command(["DEL", hash(lost)])
            try redis.command(["HSET", hash(taken), "owner", "elsewhere/1"])
            // An expiry no refresh would set: a refresh brings it back to the idle timeout.
            for id in refreshed { try redis.command(["PEXPIRE", hash(id), "100000000"]) }
            let before = await Self.statistics(app)
            // Each read once (from memory): the refreshes after it cover each once.
            for id in ids { #expect(try await app.client.get("/v1/sessions/\(id)").status == 200) }
            #expect(
                await eventually(timeout: .seconds(30)) {
                    let now = await Self.statistics(app)
                    guard now.handovers == before.handovers + 1,
                        (try? redis.reply(["HGET", hash(lost), "owner"]).string?.isEmpty) == false
                    else { return false }
                    for id in refreshed {
                        guard let expiry = try? redis.reply(["PTTL", hash(id)]).integer, expiry > 0, expiry <= 8000
                        else { return false }
                    }
                    return true
                }, "every session refreshed, the one owned elsewhere handed over, the lost one written in full")
            let now = await Self.statistics(app)
            let calls = now.touchCalls - before.touchCalls
            let touched = now.touchedSessions - before.touchedSessions
            #expect(
                touched >= ids.count && calls <= touched / 4, "\(touched) sessions in \(calls) calls, up to 64 a call")
            for id in refreshed {
                let list = JournalKeys(digest: SessionID.digest(id)).replay("search", epoch: 1)
                #expect(try redis.reply(["EXISTS", list]) == .integer(0), "no list made by a refresh")
            }
        }
    }

    /// Changes the search text and refreshes the products of each session of `ids`, all in one loop turn: for
    /// each, one write of two view models.
    @LoopActor
    static func changeBoth(_ app: TestApplication, _ ids: [String], text: String) throws {
        for id in ids {
            let session = try #require(app.application.sessions.session(id))
            let search = try #require(session.slot("search")?.model as? SearchViewModel)
            let products = try #require(session.slot("products")?.model as? ProductListViewModel)
            search.setText(text)
            products.refresh()
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
