import Testing
import VMHostTesting

@Suite("Request ids")
struct RequestIDTests {
    /// Generated ids are `<hex prefix>-<counter>`, the counter counting every request; a client's own id is
    /// kept when it is 1 to 64 characters of `[A-Za-z0-9._-]`, and replaced otherwise.
    @Test func generatedIDsCountRequestsAndClientIDsAreKeptWhenSafe() async throws {
        try await withApp { app in
            var ids: [String] = []
            for _ in 0..<12 {
                let response = try await app.client.get("/healthz")
                ids.append(try #require(response.header("X-Request-ID")))
            }
            let parts = ids.map { $0.split(separator: "-", omittingEmptySubsequences: false) }
            for part in parts {
                #expect(part.count == 2)
                #expect((1...8).contains(part[0].count) && part[0].allSatisfy(\.isHexDigit), "\(part)")
            }
            #expect(Set(parts.map { $0[0] }).count == 1, "one prefix per server")
            let counters = parts.compactMap { UInt64($0[1]) }
            #expect(counters.count == 12)
            #expect(counters == Array(counters[0]..<(counters[0] + 12)), "consecutive, across 9 → 10 and beyond")

            let kept = try await app.client.get("/healthz", headers: [("X-Request-ID", "client.id_42-A")])
            #expect(kept.header("X-Request-ID") == "client.id_42-A")
            for unsafe in ["a b", "line\u{1}", String(repeating: "x", count: 65), "é"] {
                let replaced = try await app.client.get("/healthz", headers: [("X-Request-ID", unsafe)])
                let id = try #require(replaced.header("X-Request-ID"))
                #expect(id != unsafe)
                #expect(id.hasPrefix(String(parts[0][0]) + "-"))
            }
        }
    }
}
