import EventLoop
import HTTPServer
import Testing
import VMHostTesting

/// The write timeouts ``ConnectionDeadlines`` keeps (evhttp has none): a connection whose client stopped
/// reading is closed once its output stalls for the timeout; a client that reads is never cut for being silent.
@LoopActor
@Suite("Connection deadlines", .timeLimit(.minutes(2)))
struct ConnectionDeadlinesTests {
    @Test func aResponseNobodyReadsIsClosedOnceItsOutputStallsForTheIdleTimeout() async throws {
        // NB: 3 s, not 1: the open connection is a state the test must see before it ends, and under
        // ThreadSanitizer on a loaded machine a 1 s connection was opened and closed between two looks (CI).
        let timeout = Duration.seconds(3)
        let (server, _) = makeServer(HTTPServerConfiguration(port: 0, idleTimeout: timeout))
        let port = try server.start()
        let client = try await ServerConnection.open(port: port, receiveBufferBytes: 4096)
        defer { client.close() }
        let started = ContinuousClock.now
        try await client.send("/large")
        #expect(await eventually { server.openConnectionCount == 1 })

        #expect(await eventually { server.openConnectionCount == 0 }, "the stalled connection is closed")
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= timeout, "not before its output stalled for the timeout (\(elapsed))")
        await server.shutdown()
    }

    @Test func aStalledStreamIsClosedAfterTheStreamTimeoutAndAReadingOneStaysOpen() async throws {
        // NB: the idle timeout only bounds the wait for each connection's request here (the stream timeout is what
        // this tests): 5 s, not 1, so that a loop slowed by a sanitizer on a loaded machine still reads them (a
        // CI run lost the reading connection before its head).
        let configuration = HTTPServerConfiguration(
            port: 0, idleTimeout: .seconds(5), keepaliveInterval: .milliseconds(100), streamTimeout: .seconds(1),
            streamMaxPendingBytes: 64 * 1024)
        let (server, state) = makeServer(configuration)
        let port = try server.start()

        let reading = try await ServerConnection.open(port: port)
        defer { reading.close() }
        #expect(try await reading.getHead("/events").header("Content-Type") == "text/event-stream")
        #expect(await eventually { state.streams.count == 1 })
        let keepalives = Task { @LoopActor () -> Int in
            var count = 0
            while let chunk = try? await reading.nextChunk() {
                if chunk == Array(": keepalive\n\n".utf8) { count += 1 }
            }
            return count
        }

        let stalled = try await ServerConnection.open(port: port, receiveBufferBytes: 4096)
        defer { stalled.close() }
        try await stalled.send("/events")
        try #require(await eventually { state.streams.count == 2 })
        let stalledStream = state.streams[1]
        // Events until the kernel buffers are full and output waits in the server (the stream takes more only
        // while at most 64 KiB wait), where it stays.
        let event = Array("data: \(String(repeating: "x", count: 256 * 1024))\n\n".utf8)
        // NB: full once output stayed waiting for a second (on a loaded machine the loop may simply not have written
        // it yet, and the kernel's send buffer grows to a few MB), or once the stream is closed already: under a
        // sanitizer filling can take longer than the stream timeout itself. At most 2,000 tries.
        var checks = 0
        var tries = 0
        while stalledStream.isOpen, checks < 50, tries < 2_000 {
            tries += 1
            stalledStream.send(event)
            try await Task.sleep(for: .milliseconds(20))
            checks = stalledStream.pendingBytes > 64 * 1024 ? checks + 1 : 0
        }
        #expect(checks == 50 || !stalledStream.isOpen, "output waits in the server after \(tries) tries")
        let started = ContinuousClock.now
        #expect(await eventually { !stalledStream.isOpen }, "the stalled stream is closed")
        #expect(server.openStreamCount == 1)
        // Three stream timeouts in all, without a byte from the reading client: it is not cut.
        try await Task.sleep(until: started + .seconds(3))
        #expect(state.streams[0].isOpen && server.openStreamCount == 1, "the reading stream stays open")

        await server.shutdown()
        #expect(await keepalives.value >= 10, "the reading client got keepalives all along")
    }
}
