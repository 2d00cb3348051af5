import Foundation
import Testing
import VMHostTesting

@testable import VMHostClient

#if canImport(Glibc)
import Glibc
#endif

/// The client against real servers on loopback ports: every command of every view model, and a `SIGKILL` of the
/// server during a stream with Redis, a new process on the same port, and a command sent during the outage.
@Suite struct EndToEndTests {
    /// Versions a `states` sequence yielded, and how it ended.
    final class Watch<State: RemoteState>: @unchecked Sendable {
        private let lock = NSLock()
        private var received: [State] = []
        private var ending: (any Error)?
        private var ended = false
        private var task: Task<Void, Never>?

        init(_ states: RemoteStates<State>) {
            task = Task {
                do {
                    for try await state in states { self.lock.withLock { self.received.append(state) } }
                    self.lock.withLock { self.ended = true }
                } catch {
                    self.lock.withLock {
                        self.ending = error
                        self.ended = true
                    }
                }
            }
        }

        var states: [State] { lock.withLock { received } }
        var error: (any Error)? { lock.withLock { ending } }
        var hasEnded: Bool { lock.withLock { ended } }

        /// Waits until a state satisfies `condition`; returns it.
        func until(timeout: Duration = .seconds(20), _ condition: @escaping (State) -> Bool) async -> State? {
            var found: State?
            _ = await eventually(timeout: timeout) {
                found = states.last(where: condition)
                return found != nil
            }
            return found
        }

        func cancel() { task?.cancel() }
    }

    static func strictlyIncreasing(_ versions: [Int]) -> Bool {
        zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }
    }

    @Test func everyCommandOfEveryViewModel() async throws {
        let server = try await InProcessServer.start()
        do {
            try await Self.everyCommand(on: server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func everyCommand(on server: InProcessServer) async throws {
        let transport = RecordingTransport()
        let client = VMHostClient(baseURL: server.baseURL, transport: transport)
        let session = try await client.createSession()
        let search = Watch(session.search.states)
        let products = Watch(session.products.states)
        let photo = Watch(session.photo.states)
        #expect(await search.until { $0.version >= 1 } != nil, "the snapshot comes first")
        let stream = try #require(transport.responses("streamSession").first)
        #expect(stream.headerFields[.contentEncoding] == "gzip", "the stream came gzipped and was read inflated")

        // Search: text, disabled execute, execute with and without waiting, load more, visible, cancel.
        let typed = try await session.search.setText("kit")
        #expect(typed.searchText == "kit" && !typed.canSearch)
        await #expect {
            try await session.search.execute()
        } throws: { error in
            guard case .commandDisabled(let message)? = error as? VMHostClientError else { return false }
            return !message.isEmpty
        }
        let loaded = try await session.search.execute(text: "sunset", wait: .seconds(10))
        #expect(loaded.results.status == .loaded)
        let firstPage = try #require(loaded.results.value)
        #expect(firstPage.searchString == "sunset" && !firstPage.photos.isEmpty)
        let accepted = try await session.search.execute(text: "kittens")
        #expect(accepted.version > loaded.version)
        let kittens = await search.until { $0.results.status == .loaded && $0.results.value?.searchString == "kittens" }
        let pageOne = try #require(kittens?.results.value)
        #expect(kittens?.canLoadMore == true)
        try await session.search.loadMore()
        let pageTwo = await search.until { ($0.results.value?.page ?? 0) == 2 && $0.results.status == .loaded }
        #expect((pageTwo?.results.value?.photos.count ?? 0) > pageOne.photos.count)
        let ids = pageOne.photos.prefix(2).map(\.id)
        try await session.search.visible(photoIDs: ids)
        let counted = await search.until { state in
            state.results.value?.photos.filter { ids.contains($0.id) }.allSatisfy { $0.favorites != nil } ?? false
        }
        #expect(counted != nil, "favorites of the visible photos arrive on the stream")
        try await session.search.execute(text: "mountains")
        let cancelled = try await session.search.cancel()
        #expect(!cancelled.isSearching)
        try await session.search.setText("lakes", autoSearch: true)
        #expect(await search.until { $0.results.value?.searchString == "lakes" } != nil, "the debounced search ran")

        // Products: refresh, load more, cancel.
        try await session.products.refresh()
        let listed = await products.until { !$0.items.isEmpty && !$0.isRefreshing }
        let pageSize = try #require(listed?.items.count)
        try await session.products.loadMore()
        let more = await products.until { $0.page == 2 && !$0.isLoadingMore }
        #expect(more?.items.count ?? 0 > pageSize)
        let stopped = try await session.products.cancel()
        #expect(!stopped.isRefreshing && !stopped.isLoadingMore)

        // Photo: open, then close.
        let photoID = try #require(pageOne.photos.first?.id)
        try await session.photo.open(photoID: photoID)
        let opened = await photo.until { $0.detail.status == .loaded && $0.comments.status == .loaded }
        #expect(
            opened?.photoId == photoID,
            "\(String(describing: photo.error)) \(photo.states.last.map { "\($0)" } ?? "none")")
        #expect(opened?.detail.value?.title.isEmpty == false && opened?.detail.value?.owner.isEmpty == false)
        let closed = try await session.photo.close()
        #expect(closed.photoId == nil && closed.detail.status == .idle)

        // The session resource, then its end: every sequence ends with sessionNotFound.
        let whole = try await session.state()
        #expect(whole.id == session.id && whole.products.items.count == more?.items.count)
        for versions in [search.states.map(\.version), products.states.map(\.version), photo.states.map(\.version)] {
            #expect(strictlyIncreasing(versions), "\(versions)")
        }
        try await session.delete()
        #expect(await eventually(timeout: .seconds(10)) { search.hasEnded && products.hasEnded && photo.hasEnded })
        guard case .sessionNotFound? = search.error as? VMHostClientError else {
            Issue.record("the sequence ended with \(String(describing: search.error))")
            return
        }
        await #expect {
            _ = try await session.state()
        } throws: { error in
            guard case .sessionNotFound? = error as? VMHostClientError else { return false }
            return true
        }
    }

    @Test(.enabled(if: VMHostProcess.isBuilt))
    func aKilledServerIsResumedWithNoGapAndACommandSentDuringTheOutageLandsOnce() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let upstream = try await TestUpstream()
        let first = try await VMHostProcess.start(redis: redis, upstream: upstream.baseURL)
        var configuration = VMHostClientConfiguration()
        configuration.requestAttempts = 20
        configuration.initialRetryDelay = .milliseconds(100)
        configuration.maxRetryDelay = .seconds(1)
        configuration.defaultStreamRetry = .milliseconds(200)
        let client = VMHostClient(baseURL: first.baseURL, configuration: configuration)
        let session = try await client.createSession()
        let products = Watch(session.products.states)
        try await session.products.refresh()
        let listed = try #require(await products.until { !$0.items.isEmpty && !$0.isRefreshing })
        let pageRequests = await upstream.requests("/products")

        try await first.stop(SIGKILL)
        // The command goes out while nothing listens: it is retried, with its one key, until the new process is up.
        let loadMore = Task { try await session.products.loadMore() }
        try await Task.sleep(for: .milliseconds(500))
        let second = try await VMHostProcess.start(port: first.port, redis: redis, upstream: upstream.baseURL)
        defer { second.process.signal(SIGKILL) }

        let accepted = try await loadMore.value
        #expect(accepted.version > listed.version)
        let more = await products.until { $0.page == 2 && !$0.isLoadingMore }

        let items = try #require(more?.items)
        #expect(items.count > listed.items.count)
        #expect(Set(items.map(\.id)).count == items.count, "page 2 appended once")
        #expect(await upstream.requests("/products") == pageRequests + 1, "the upstream served page 2 once")
        #expect(products.error == nil && !products.hasEnded, "the sequence saw no error")
        let versions = products.states.map(\.version)
        #expect(Self.strictlyIncreasing(versions), "\(versions)")
        let current = try await session.state()
        #expect(current.products.version == versions.last)
        products.cancel()
        await upstream.shutdown()
    }
}
