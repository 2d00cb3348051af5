import Foundation
import Testing
import VMHostClient
import VMHostTesting

/// CLIENT.md's example, line for line, through the public API only (no `@testable`): code outside this repository
/// compiles against these names. It runs against a real server.
@Suite struct ContractExampleTests {
    @Test func theContractsExampleRuns() async throws {
        let server = try await InProcessServer.start()
        do {
            try await Self.example(baseURL: server.baseURL)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func example(baseURL: URL) async throws {
        let client = VMHostClient(
            baseURL: baseURL,
            token: { "eyJ..." }  // optional: called for every request and after a 401 / reauth
        )

        let session = try await client.createSession()  // POST /v1/sessions
        let again = client.session(id: session.id)  // attach to an existing session (no request)

        let search: RemoteViewModel<SearchState> = session.search
        let rendered = Recorder<Int>()
        let rendering = Task {
            for try await state in search.states {  // the snapshot first, then every later version, in order
                rendered.append(state.version)  // state.version strictly increases
            }
        }

        try await search.setText("kittens", autoSearch: true)  // POST .../search/text
        try await search.execute(text: "sunset")  // POST .../search/execute    -> Accepted
        let loaded = try await search.execute(text: "sunset", wait: .seconds(10))  // Prefer: wait -> SearchState
        #expect(loaded.results.status == .loaded)
        try await search.loadMore()
        try await search.cancel()
        try await search.visible(photoIDs: ["53012345678"])

        try await session.products.refresh()
        _ = try? await session.products.loadMore()  // 409 command_disabled while the refresh loads
        try await session.products.cancel()

        try await session.photo.open(photoID: "53012345678")
        try await session.photo.close()

        let snapshot = try await again.state()  // GET /v1/sessions/{id}: SessionState
        #expect(snapshot.id == session.id && snapshot.search.version >= loaded.version)
        #expect(await eventually(timeout: .seconds(10)) { rendered.values.last == snapshot.search.version })
        let versions = rendered.values
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }, "\(versions)")
        try await session.delete()
        rendering.cancel()
    }
}
