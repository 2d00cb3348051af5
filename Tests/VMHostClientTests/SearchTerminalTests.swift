import Foundation
import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// `vmhost-search` driven through a pseudo-terminal, as a person uses it: a query, its titles, a server restart,
/// another query, the next page, a photo.
@Suite struct SearchTerminalTests {
    static var binary: String {
        (VMHostProcess.binary as NSString).deletingLastPathComponent + "/vmhost-search"
    }

    @Test(.enabled(if: VMHostProcess.isBuilt && access(SearchTerminalTests.binary, X_OK) == 0))
    func aSearchSurvivesAServerRestart() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let upstream = try await TestUpstream()
        let first = try await VMHostProcess.start(redis: redis, upstream: upstream.baseURL)
        let terminal = try PseudoTerminal(Self.binary, ["--url", "http://127.0.0.1:\(first.port)"])
        #expect(await terminal.waitFor("type a search") != nil, "\(terminal.screen)")

        terminal.type("kittens")
        #expect(await terminal.waitFor("kittens: ") != nil, "\(terminal.screen)")
        #expect(await terminal.waitFor("  1. ") != nil, "titles of the results: \(terminal.screen)")

        try await first.stop(SIGKILL)
        let second = try await VMHostProcess.start(port: first.port, redis: redis, upstream: upstream.baseURL)
        defer { second.process.signal(SIGKILL) }

        terminal.type("sunset")
        #expect(await terminal.waitFor("sunset: ", timeout: .seconds(40)) != nil, "\(terminal.screen)")
        #expect(await terminal.waitFor("  1. ") != nil, "\(terminal.screen)")
        terminal.type("+")
        #expect(await terminal.waitFor("page 2 of") != nil, "the next page: \(terminal.screen)")
        terminal.type(":open 1")
        #expect(await terminal.waitFor("photo: ") != nil, "\(terminal.screen)")
        #expect(await terminal.waitFor("by: ") != nil, "\(terminal.screen)")
        #expect(!terminal.screen.contains("error"), "the user saw no error: \(terminal.screen)")
        terminal.type(":quit")
        #expect(await terminal.exitStatus() == 0)
        await upstream.shutdown()
    }
}
