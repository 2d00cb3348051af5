import JSON
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Two real vmhost processes on one real `redis-server`: the first holds sessions with open streams and loads
/// in flight and goes away (SIGKILL, SIGTERM, or SIGKILL with Redis restarted too); the second serves every
/// session with nothing lost, no version reused, and streams that resume where their clients were.
@Suite("Durable sessions across processes", .serialized, .enabled(if: access(ExecutableTests.binary, X_OK) == 0))
struct DurableSessionProcessTests {
    /// How the first process goes away.
    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        /// SIGKILL while loads are in flight upstream.
        case kill
        /// SIGKILL while commands keep arriving and loads keep ending (some versions mid-write to Redis).
        case killWhileBusy
        /// SIGTERM while loads are in flight: the process releases its sessions.
        case terminate
        /// SIGTERM while commands keep arriving and loads keep ending.
        case terminateWhileBusy
        /// SIGKILL, then `redis-server` killed and restarted (with its append-only file) before the takeover.
        case killAndRestartRedis
        var testDescription: String { rawValue }
    }

    static let wait = [("Prefer", "wait=10")]

    /// The view model whose load is in flight at the end, for session `index` (nil: none).
    static func slowViewModel(_ index: Int) -> String? {
        switch index % 4 {
        case 0: "search"
        case 1: "products"
        case 2: "photo"
        default: nil
        }
    }

    @Test(arguments: Ending.allCases)
    func everySessionContinuesOnTheSecondProcess(_ ending: Ending) async throws {
        let upstream = try await SharedUpstream()
        let redis = try RedisServerProcess(persistent: ending == .killAndRestartRedis)
        try await redis.start()
        defer { redis.kill() }
        let first = try await VMHostNode.start("first", redis: redis, upstream: upstream.baseURL)
        let second: VMHostNode
        do {
            second = try await VMHostNode.start("second", redis: redis, upstream: upstream.baseURL)
        } catch {
            try await first.stop(SIGKILL)
            throw error
        }
        do {
            try await Self.run(ending, first: first, second: second, redis: redis, upstream: upstream)
        } catch {
            _ = try? await first.stop(SIGKILL)
            _ = try? await second.stop(SIGKILL)
            await upstream.shutdown()
            throw error
        }
        try await second.stop(SIGKILL)
        await upstream.shutdown()
    }

    static func run(
        _ ending: Ending, first: VMHostNode, second: VMHostNode, redis: RedisServerProcess, upstream: SharedUpstream
    ) async throws {
        #expect(try await first.journalBecomes("ok"))
        #expect(try await second.journalBecomes("ok"))
        let count = ending == .kill ? 40 : 20

        // Sessions with two searches (two pages of the last), metadata of some photos, two product pages, an
        // open photo for some, each with its multiplexed stream followed by a client.
        let sessions = try await inGroups(of: 8, Array(0..<count)) { index in
            try await Self.prepare(index, on: first)
        }
        let clients = sessions.map(\.client)
        #expect(
            try await eventually(timeout: .seconds(20)) {
                try await allSatisfy(clients) { $0.matches(try await first.client.get("/v1/sessions/\($0.id)").json) }
            }, "every client applied every change it was sent")

        // The last command of some sessions is a load that is in flight when the first process goes away.
        await upstream.setLatency(.seconds(30))
        for (index, session) in sessions.enumerated() {
            guard let slow = slowViewModel(index) else { continue }
            let path = "/v1/sessions/\(session.client.id)/"
            let response: TestHTTPResponse
            switch slow {
            case "search":
                response = try await first.client.post(
                    path + "search/execute", json: ["text": .string("slow \(index)")])
            case "products": response = try await first.client.post(path + "products/load-more")
            default:
                response = try await first.client.post(
                    path + "photo/open", json: ["photoId": .string(session.photos[1])])
            }
            #expect(response.status == 202, "\(slow): \(response.text)")
        }
        #expect(
            await eventually(timeout: .seconds(20)) {
                sessions.indices.allSatisfy { index in
                    guard let slow = slowViewModel(index) else { return true }
                    return clients[index].current.states[slow]?.isLoadingAnything == true
                }
            }, "the clients see the loads in flight")

        var busy: Task<Void, Never>?
        if ending == .killWhileBusy || ending == .terminateWhileBusy {
            // Every session gets commands back to back while loads end after 20 ms; the kill lands mid-stream.
            await upstream.setLatency(.milliseconds(20))
            let eventsBefore = clients.map(\.current.events)
            busy = Task {
                await withTaskGroup(of: Void.self) { group in
                    for (index, session) in sessions.enumerated() {
                        group.addTask { await Self.keepBusy(index, session, on: first) }
                    }
                }
            }
            #expect(
                await eventually {
                    zip(clients, eventsBefore).allSatisfy { $0.current.events >= $1 + 6 }
                }, "every stream is busy")
        }
        switch ending {
        case .kill, .killAndRestartRedis, .killWhileBusy:
            try await first.stop(SIGKILL)
        case .terminate, .terminateWhileBusy:
            #expect(try await first.stop(SIGTERM) == 0)
        }
        await busy?.value
        #expect(
            await eventually { clients.allSatisfy { $0.current.ended } }, "every stream of the first process ended")
        if ending == .killAndRestartRedis {
            try await redis.restart()
            #expect(try await second.journalBecomes("ok"))
        }
        await upstream.setLatency(.zero)

        // The second process serves every session as its client last saw it (a load in flight may have ended
        // since), and each stream resumes from the client's Last-Event-ID.
        for (index, client) in clients.enumerated() {
            let seen = client.current
            // Half the sessions are taken over by their resumed stream, the others by a GET.
            if index % 2 == 1 { try await client.follow(port: second.port) }
            let taken = try await second.client.get("/v1/sessions/\(client.id)")
            #expect(taken.status == 200)
            #expect(taken.header("X-VMHost-Node") == "second")
            let resource = try #require(taken.json)
            for (name, state) in seen.states {
                let version = try #require(state["version"]?.intValue)
                let now = try #require(resource[name]?["version"]?.intValue)
                if name == slowViewModel(index) || ending == .killWhileBusy || ending == .terminateWhileBusy {
                    // A load in flight may have ended since; a write Redis acknowledged may not have reached
                    // the client before the kill. Never an older version, never another state for the same one.
                    #expect(now >= version, "\(name) of \(client.id)")
                    if now == version { #expect(resource[name] == state, "\(name) of \(client.id)") }
                } else {
                    #expect(resource[name] == state, "\(name) of \(client.id) is what its client saw")
                }
            }
            if index % 2 == 0 { try await client.follow(port: second.port) }
        }
        #expect(
            try await eventually(timeout: .seconds(30)) {
                try await allSatisfy(clients) { client in
                    let resource = try await second.client.get("/v1/sessions/\(client.id)").json
                    return resource?.isLoadingAnything == false && client.matches(resource)
                }
            }, "the loads that were in flight ended, and every resumed stream reached the state GET shows")
        for (index, session) in sessions.enumerated() where ending != .killWhileBusy && ending != .terminateWhileBusy {
            let state = try #require(try await second.client.get("/v1/sessions/\(session.client.id)").json)
            #expect(state["search"]?["results"]?["status"] == "loaded")
            #expect(state["products"]?["lastError"] == .null)
            #expect(state["search"]?["recentSearches"]?.arrayValue?.count == (slowViewModel(index) == "search" ? 3 : 2))
            #expect(state["products"]?["page"] == (slowViewModel(index) == "products" ? 3 : 2))
            if slowViewModel(index) == "photo" {
                #expect(state["photo"]?["photoId"] == .string(session.photos[1]))
                #expect(state["photo"]?["detail"]?["status"] == "loaded")
            }
        }

        // The next commands work and continue the versions; the streams carry them.
        for client in clients {
            let before = try await second.client.get("/v1/sessions/\(client.id)/search").json?["version"]?.intValue
            let text = try await second.client.post("/v1/sessions/\(client.id)/search/text", json: ["text": "after"])
            #expect(text.status == 200)
            #expect(text.json?["version"]?.intValue == before.map { $0 + 1 })
        }
        #expect(
            try await eventually(timeout: .seconds(20)) {
                try await allSatisfy(clients) { $0.matches(try await second.client.get("/v1/sessions/\($0.id)").json) }
            })
        #expect(try await second.metric("vmhost_sessions_taken_over_total") == Double(count))
        for client in clients {
            #expect(client.current.problems.isEmpty, "\(client.current.problems)")
        }
    }

    /// Sends session `index` commands until its node goes away: text changes, searches and refreshes.
    static func keepBusy(_ index: Int, _ session: Prepared, on node: VMHostNode) async {
        let path = "/v1/sessions/\(session.client.id)/"
        var round = 0
        while true {
            round += 1
            let text = JSONValue.object(["text": .string("busy \(round)")])
            let response: TestHTTPResponse?
            switch (round + index) % 3 {
            case 0: response = try? await node.client.post(path + "search/execute", json: text)
            case 1: response = try? await node.client.post(path + "products/refresh")
            default: response = try? await node.client.post(path + "search/text", json: text)
            }
            guard let response, response.status < 500 else { return }
        }
    }

    struct Prepared: Sendable {
        let client: DurableSessionClient
        let photos: [String]
    }

    static func prepare(_ index: Int, on node: VMHostNode) async throws -> Prepared {
        let id = try await node.createSession()
        let client = DurableSessionClient(id: id)
        try await client.follow(port: node.port)
        let path = "/v1/sessions/\(id)/"
        let http = node.client
        #expect(
            try await http.post(
                path + "search/execute", json: ["text": .string("kittens \(index)")], headers: Self.wait
            ).status == 200)
        #expect(
            try await http.post(path + "search/execute", json: ["text": .string("aurora \(index)")], headers: Self.wait)
                .status == 200)
        let search = try await http.post(path + "search/load-more", headers: Self.wait)
        #expect(search.status == 200)
        let photos = (search.json?["results"]?["value"]?["photos"]?.arrayValue ?? []).compactMap {
            $0["id"]?.stringValue
        }
        #expect(photos.count > 3)
        guard photos.count > 3 else { throw TestClientError("no photos for \(id)") }
        if index % 2 == 0 {
            let visible = try await http.post(
                path + "search/visible", json: ["photoIds": .array(photos.prefix(3).map { .string($0) })],
                headers: Self.wait)
            #expect(visible.status == 200)
            #expect(visible.json?["results"]?["value"]?["photos"]?[0]?["favorites"]?.intValue != nil)
        }
        #expect(try await http.post(path + "products/refresh", headers: Self.wait).status == 200)
        #expect(try await http.post(path + "products/load-more", headers: Self.wait).status == 200)
        if index % 3 == 0 {
            #expect(
                try await http.post(path + "photo/open", json: ["photoId": .string(photos[0])], headers: Self.wait)
                    .status == 200)
        }
        return Prepared(client: client, photos: photos)
    }

    // MARK: Idempotency-Key

    @Test func aRepeatedLoadMoreAfterAKillLandsOnce() async throws {
        let upstream = try await SharedUpstream()
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.kill() }
        let first = try await VMHostNode.start("first", redis: redis, upstream: upstream.baseURL)
        let second = try await VMHostNode.start("second", redis: redis, upstream: upstream.baseURL)
        defer {
            first.process.signal(SIGKILL)
            second.process.signal(SIGKILL)
        }
        #expect(try await first.journalBecomes("ok"))
        #expect(try await second.journalBecomes("ok"))

        let id = try await first.createSession()
        let path = "/v1/sessions/\(id)/products/"
        #expect(try await first.client.post(path + "refresh", headers: Self.wait).status == 200)
        let key = ("Idempotency-Key", "load-more-2")
        let answer = try await first.client.post(path + "load-more", headers: Self.wait + [key])
        #expect(answer.status == 200)
        #expect(answer.json?["page"] == 2)
        try await first.stop(SIGKILL)

        let again = try await second.client.post(path + "load-more", headers: Self.wait + [key])
        #expect(again.status == answer.status)
        #expect(again.header("Idempotent-Replayed") == "true")
        #expect(again.body == answer.body)
        let products = try #require(try await second.client.get("/v1/sessions/\(id)/products").json)
        #expect(products["page"] == 2)
        let ids = (products["items"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
        #expect(ids.count == (answer.json?["items"]?.arrayValue?.count ?? -1), "the page is in the list once")
        #expect(Set(ids).count == ids.count)

        let reused = try await second.client.post(path + "load-more", json: ["other": true], headers: [key])
        #expect(reused.status == 422)
        #expect(reused.errorCode == "idempotency_key_reused")
        let otherCommand = try await second.client.post(path + "refresh", headers: [key])
        #expect(otherCommand.status == 422)
        await upstream.shutdown()
    }
}

/// Runs `body` for every element, at most `width` at once, and returns the results in order.
func inGroups<Element: Sendable, Result: Sendable>(
    of width: Int, _ elements: [Element], _ body: @escaping @Sendable (Element) async throws -> Result
) async throws -> [Result] {
    var results: [Result] = []
    var start = 0
    while start < elements.count {
        let slice = Array(elements[start..<min(start + width, elements.count)])
        let batch = try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            for (offset, element) in slice.enumerated() {
                group.addTask { (offset, try await body(element)) }
            }
            return try await group.reduce(into: [(Int, Result)]()) { $0.append($1) }
        }
        results += batch.sorted { $0.0 < $1.0 }.map(\.1)
        start += width
    }
    return results
}

/// Whether `condition` holds for every element (checked one after the other).
func allSatisfy<Element>(_ elements: [Element], _ condition: (Element) async throws -> Bool) async throws -> Bool {
    for element in elements where !(try await condition(element)) { return false }
    return true
}
