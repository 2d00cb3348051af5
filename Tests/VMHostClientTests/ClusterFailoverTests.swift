import Foundation
import Testing
import VMHostTesting

@testable import VMHostClient

#if canImport(Glibc)
import Glibc
#endif

/// The client through HAProxy in front of two vmhost nodes on one Redis (the configuration `scripts/cluster`
/// writes, from `scripts/haproxy-config`): the node holding the session is killed, and the client's sequence goes on
/// from the other node with no gap, with a command sent during the failover landing once.
@Suite struct ClusterFailoverTests {
    static var root: String {
        var path = Substring(#filePath)
        for _ in 0..<3 {
            if let slash = path.lastIndex(of: "/") { path = path[..<slash] }
        }
        return String(path)
    }

    static var isAvailable: Bool {
        VMHostProcess.isBuilt && access("/usr/sbin/haproxy", X_OK) == 0 && access("/usr/bin/redis-server", X_OK) == 0
    }

    @Test(.enabled(if: isAvailable))
    func aKilledNodesSessionContinuesOnTheOtherNode() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let upstream = try await TestUpstream()
        let nodes = [
            try await VMHostProcess.start(nodeID: "n1", redis: redis, upstream: upstream.baseURL),
            try await VMHostProcess.start(nodeID: "n2", redis: redis, upstream: upstream.baseURL),
        ]
        defer { for node in nodes { node.process.signal(SIGKILL) } }
        let directory = "/tmp/vmhost-client-cluster-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let port = try TestListener.closedPort()
        let configure = try SpawnedProcess(
            "/bin/sh",
            [
                "-c",
                "mkdir -p '\(directory)' && '\(Self.root)/scripts/haproxy-config' --port \(port) "
                    + "--socket '\(directory)/haproxy.sock' n1=127.0.0.1:\(nodes[0].port) "
                    + "n2=127.0.0.1:\(nodes[1].port) > '\(directory)/haproxy.cfg'",
            ])
        #expect(try await offPool { configure.waitForExit() } == 0)
        let proxy = try SpawnedProcess(
            "/usr/sbin/haproxy", ["-db", "-f", "\(directory)/haproxy.cfg"], standardError: "\(directory)/haproxy.log")
        defer {
            proxy.signal(SIGKILL)
            _ = proxy.waitForExit()
            _ = try? SpawnedProcess("/bin/rm", ["-rf", directory]).waitForExit()
        }
        // NB: this proxy, not another test's server that took the port between its pick and the proxy's bind.
        let listening = await eventually(timeout: .seconds(10)) { proxy.isListening(onPort: port) }
        try #require(listening, "HAProxy holds port \(port) (\(directory)/haproxy.log)")
        var configuration = VMHostClientConfiguration()
        configuration.requestAttempts = 20
        configuration.maxRetryDelay = .seconds(2)
        let client = VMHostClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, configuration: configuration)
        var created: VMHostSession?
        _ = await eventually(timeout: .seconds(15)) {
            created = try? await client.createSession()
            return created != nil
        }
        let session = try #require(created, "the proxy answers")
        let holder = session.id.hasSuffix(".n2") ? 1 : 0
        #expect(session.id.hasSuffix(".n\(holder + 1)"), "a session id names its node: \(session.id)")

        let products = EndToEndTests.Watch(session.products.states)
        try await session.products.refresh()
        let listed = try #require(await products.until { !$0.items.isEmpty && !$0.isRefreshing })
        let pageRequests = await upstream.requests("/products")

        try await nodes[holder].stop(SIGKILL)
        let accepted = try await session.products.loadMore()
        #expect(accepted.version > listed.version)
        let more = await products.until(timeout: .seconds(40)) { $0.page == 2 && !$0.isLoadingMore }
        let items = try #require(more?.items)
        #expect(Set(items.map(\.id)).count == items.count && items.count > listed.items.count, "page 2 once")
        #expect(await upstream.requests("/products") == pageRequests + 1)
        #expect(products.error == nil && !products.hasEnded, "the sequence saw no error")
        let versions = products.states.map(\.version)
        #expect(EndToEndTests.strictlyIncreasing(versions), "\(versions)")
        #expect(try await session.state().products.version == versions.last)
        products.cancel()
        await upstream.shutdown()
    }
}
