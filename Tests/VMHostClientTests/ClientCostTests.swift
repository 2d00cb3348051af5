import Foundation
import Testing
import VMHostTesting

@testable import VMHostClient

#if canImport(Glibc)
import Glibc
#endif

/// What the client costs per patch it receives: one session's multiplexed stream carrying 10,000 changes of the
/// product list (the shape of the server's fan-out scenario (c)), fed by a scripted transport so that only the
/// client's work is measured: SSE parsing, the patch applied, the state decoded and yielded.
///
/// Off by default (it measures, it does not check much): `VMHOST_CLIENT_COST=1 swift test --filter ClientCostTests`.
@Suite struct ClientCostTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["VMHOST_CLIENT_COST"] == "1" }

    static func processCPUTime() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    @Test(.enabled(if: enabled))
    func cpuPerReceivedPatch() async throws {
        // VMHOST_CLIENT_COST_CHANGES: another count of changes.
        let changes = Int(ProcessInfo.processInfo.environment["VMHOST_CLIENT_COST_CHANGES"] ?? "") ?? 10_000
        let feed = EventFeed()
        let transport = ScriptedTransport { _ in .stream(feed) }
        let session = VMHostClient(baseURL: Fixtures.baseURL, transport: transport).session(id: "s1")
        // One chunk per event, as the server flushes them.
        var events = ["event: products.snapshot\ndata: \(Fixtures.products(version: 1))\n\n"]
        for version in 2...(changes + 1) {
            let refreshing = version % 2 == 0
            events.append(
                "event: products.patch\ndata: [{\"op\":\"replace\",\"path\":\"/version\",\"value\":\(version)},"
                    + "{\"op\":\"replace\",\"path\":\"/isRefreshing\",\"value\":\(refreshing)}]\n\n")
        }
        let started = Self.processCPUTime()
        let clock = ContinuousClock.now
        for event in events { feed.send(event) }
        var last = 0
        for try await state in session.products.states {
            last = state.version
            if last == changes + 1 { break }
        }
        let cpu = Self.processCPUTime() - started
        let wall = ContinuousClock.now - clock
        #expect(last == changes + 1)
        print("client cost: \(changes) patches, CPU \(cpu / changes) per patch, wall \(wall / changes) per patch")
    }
}

/// The time from a server's `SIGKILL` to each client's next state, over 100 clients of one vmhost on Redis: at the
/// kill every client sends `products.refresh()` (retried until a new process answers on the same port, started at
/// once), and the time is taken when its `states` sequence yields the version that command made.
///
/// Off by default: `VMHOST_CLIENT_COST=1 swift test --filter RestartLatencyTests`.
@Suite struct RestartLatencyTests {
    @Test(.enabled(if: ClientCostTests.enabled && VMHostProcess.isBuilt))
    func killToNextStateOverAHundredClients() async throws {
        let count = 100
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let upstream = try await TestUpstream()
        let first = try await VMHostProcess.start(redis: redis, upstream: upstream.baseURL)
        var watches: [(VMHostSession, EndToEndTests.Watch<ProductListState>)] = []
        for _ in 0..<count {
            let session = try await VMHostClient(baseURL: first.baseURL).createSession()
            watches.append((session, EndToEndTests.Watch(session.products.states)))
        }
        for (_, watch) in watches { #expect(await watch.until { $0.version >= 1 } != nil) }
        let killed = ContinuousClock.now
        try await first.stop(SIGKILL)
        let second = try await VMHostProcess.start(port: first.port, redis: redis, upstream: upstream.baseURL)
        defer { second.process.signal(SIGKILL) }
        let latencies = try await withThrowingTaskGroup(of: Duration?.self) { group in
            for (session, watch) in watches {
                group.addTask {
                    let accepted = try await session.products.refresh()
                    guard await watch.until(timeout: .seconds(60), { $0.version >= accepted.version }) != nil else {
                        return nil
                    }
                    return ContinuousClock.now - killed
                }
            }
            var all: [Duration] = []
            for try await latency in group { if let latency { all.append(latency) } }
            return all.sorted()
        }
        #expect(latencies.count == count)
        guard !latencies.isEmpty else { return }
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        print(
            "kill to next state over \(latencies.count) clients: p50 \(p50), p99 \(p99), max \(latencies[latencies.count - 1])"
        )
        for (_, watch) in watches { watch.cancel() }
        await upstream.shutdown()
    }
}
