import Foundation
import Testing

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
        let changes = 10_000
        let feed = EventFeed()
        let transport = ScriptedTransport { _ in .stream(feed) }
        let session = VMHostClient(baseURL: Fixtures.baseURL, transport: transport).session(id: "s1")
        var text = "event: products.snapshot\ndata: \(Fixtures.products(version: 1))\n\n"
        for version in 2...(changes + 1) {
            let refreshing = version % 2 == 0
            text +=
                "event: products.patch\ndata: [{\"op\":\"replace\",\"path\":\"/version\",\"value\":\(version)},"
                + "{\"op\":\"replace\",\"path\":\"/isRefreshing\",\"value\":\(refreshing)}]\n\n"
        }
        let started = Self.processCPUTime()
        let clock = ContinuousClock.now
        feed.send(text)
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
