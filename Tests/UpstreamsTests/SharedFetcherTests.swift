import EventLoop
import FakeUpstream
import HTTPClient
import Logging
import Services
import Testing
import VMHostTesting

@testable import Upstreams

@LoopActor
@Suite("SharedFetcher: in-flight sharing and cache")
struct SharedFetcherTests {
    final class Outcomes {
        var all: [SharedFetcher.Outcome] = []
    }

    /// A fake upstream whose latency runs on `clock` (the test's, when the test moves time itself).
    func makeFake(latency: Duration, clock: LoopClock = LoopClock()) throws -> FakeUpstream {
        let fake = FakeUpstream(
            behavior: FakeUpstreamBehavior(latency: latency), logger: Logger(label: "fake"), clock: clock)
        try fake.start()
        return fake
    }

    @Test func identicalRequestsInFlightShareOneTransfer() async throws {
        // NB: the fake's latency is on a test clock: every caller has joined before the answer, however slow the
        // runner.
        let clock = TestClock()
        let fake = try makeFake(latency: .milliseconds(200), clock: clock.clock)
        let fetcher = SharedFetcher(client: HTTPClient())
        let outcomes = Outcomes()
        fetcher.onOutcome = { outcomes.all.append($0) }
        let url = "\(fake.baseURL)/products?page=1&pageSize=5"
        let tasks = (0..<10).map { _ in
            Task { @LoopActor in try await fetcher.get(url, cacheable: false) }
        }
        try #require(await eventually { clock.sleeperCount == 1 && outcomes.all.count == 10 })
        clock.advance(by: .milliseconds(200))
        var bodies: Set<[UInt8]> = []
        for task in tasks { bodies.insert(try await task.value.body) }
        #expect(bodies.count == 1)
        #expect(fake.requestCount("/products") == 1, "ten callers, one upstream request")
        #expect(outcomes.all.filter { $0 == .miss }.count == 1)
        #expect(outcomes.all.filter { $0 == .shared }.count == 9)
        await fake.shutdown()
    }

    @Test func oneCallerLeavingDoesNotAbortTheOthers() async throws {
        // NB: the fake's latency is on a test clock: the transfer is still in flight when the flight count is
        // read, after the first caller left, until the test moves the clock.
        let clock = TestClock()
        let fake = try makeFake(latency: .seconds(2), clock: clock.clock)
        let fetcher = SharedFetcher(client: HTTPClient())
        let url = "\(fake.baseURL)/products?page=2&pageSize=5"
        let leaving = Task { @LoopActor in try await fetcher.get(url, cacheable: false) }
        let staying = Task { @LoopActor in try await fetcher.get(url, cacheable: false) }
        try #require(await eventually { clock.sleeperCount == 1 }, "the fake holds the request")
        leaving.cancel()
        await #expect(throws: HTTPClientError.cancelled) { try await leaving.value }
        #expect(fetcher.flightCount == 1, "the transfer goes on for the caller still waiting")
        clock.advance(by: .seconds(2))
        #expect(try await staying.value.status == 200)
        #expect(fake.requestCount("/products") == 1)
        await fake.shutdown()
    }

    @Test func theLastCallerLeavingAbortsTheTransfer() async throws {
        // NB: the fake's latency is on a test clock nobody moves: the answer never comes.
        let clock = TestClock()
        let fake = try makeFake(latency: .seconds(30), clock: clock.clock)
        let client = HTTPClient()
        let fetcher = SharedFetcher(client: client)
        let url = "\(fake.baseURL)/products?page=3&pageSize=5"
        let callers = (0..<3).map { _ in Task { @LoopActor in try await fetcher.get(url, cacheable: true) } }
        try #require(await eventually { clock.sleeperCount == 1 }, "the fake holds the request")
        try #require(client.activeTransfers > 0)
        for caller in callers { caller.cancel() }
        for caller in callers { await #expect(throws: HTTPClientError.cancelled) { try await caller.value } }
        #expect(fetcher.flightCount == 0)
        #expect(await eventually { client.activeTransfers == 0 }, "the upstream transfer was aborted")
        await fake.shutdown()
    }

    @Test func cacheServesFreshAnswersAndExpiresThem() async throws {
        let fake = try makeFake(latency: .zero)
        let clock = TestClock()
        let fetcher = SharedFetcher(client: HTTPClient(), ttl: .seconds(60), clock: clock.clock)
        let outcomes = Outcomes()
        fetcher.onOutcome = { outcomes.all.append($0) }
        let url = "\(fake.baseURL)/products?page=1&pageSize=3"

        _ = try await fetcher.get(url, cacheable: true)
        clock.advance(by: .seconds(59))
        _ = try await fetcher.get(url, cacheable: true)
        #expect(fake.requestCount("/products") == 1)
        clock.advance(by: .seconds(2))
        _ = try await fetcher.get(url, cacheable: true)
        #expect(fake.requestCount("/products") == 2, "expired after the TTL")
        _ = try await fetcher.get(url, cacheable: false)
        #expect(fake.requestCount("/products") == 3, "not cacheable: always upstream")
        #expect(outcomes.all == [.miss, .hit, .miss, .miss])
        await fake.shutdown()
    }

    @Test func errorsAreNotCachedAndTheCacheIsBounded() async throws {
        let fake = try makeFake(latency: .zero)
        fake.behavior = FakeUpstreamBehavior(fault: .http500, faultCount: 1)
        let fetcher = SharedFetcher(client: HTTPClient(), maxEntries: 2)
        let url = { (page: Int) in "\(fake.baseURL)/products?page=\(page)&pageSize=3" }
        #expect(try await fetcher.get(url(1), cacheable: true).status == 500)
        #expect(try await fetcher.get(url(1), cacheable: true).status == 200)
        #expect(fake.requestCount("/products") == 2, "the 500 was not cached")
        _ = try await fetcher.get(url(2), cacheable: true)
        _ = try await fetcher.get(url(3), cacheable: true)
        _ = try await fetcher.get(url(1), cacheable: true)
        #expect(fake.requestCount("/products") == 5, "the oldest entry was evicted")
        _ = try await fetcher.get(url(3), cacheable: true)
        #expect(fake.requestCount("/products") == 5)
        await fake.shutdown()
    }
}
