import EventLoop
import Redis
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

@Suite("Throwaway redis-server")
struct RedisServerProcessTests {
    /// A port taken when the server starts (in a parallel suite another test's socket can take a port picked as
    /// free) makes the server exit at once: the start tries again on the same port until it is free.
    @Test @LoopActor func aStartRetriesWhileItsPortIsTaken() async throws {
        var holder: TestListener? = try TestListener()
        let port = try #require(holder?.port)
        let server = try RedisServerProcess(port: port)
        let start = Task { try await server.start() }
        try await Task.sleep(for: .milliseconds(400))
        holder = nil
        try await start.value
        let client = RedisClient(configuration: fastConfiguration(port: server.port))
        client.start()
        let reply = try await client.send(["PING"])
        #expect(reply.string == "PONG")
        client.shutdown()
    }

    /// Another server already on the port answers `PING` too: a start is not fooled by it (it checks that its own
    /// process holds the listening socket), and fails once its deadline passes.
    @Test func aStartIsNotFooledByAnotherServerOnItsPort() async throws {
        let first = try RedisServerProcess()
        try await first.start()
        let pid = try #require(first.pid)
        #expect(SpawnedProcess.process(pid, isListeningOnPort: first.port))
        let holder = try TestListener()
        #expect(SpawnedProcess.process(getpid(), isListeningOnPort: holder.port))
        #expect(!SpawnedProcess.process(pid, isListeningOnPort: holder.port))

        let second = try RedisServerProcess(port: first.port)
        await #expect(throws: TestClientError.self) { try await second.start(timeout: .seconds(2)) }
        #expect(second.pid == nil)
        first.kill()
    }
}
