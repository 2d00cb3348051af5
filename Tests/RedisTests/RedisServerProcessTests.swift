import EventLoop
import Redis
import Testing
import VMHostTesting

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
}
