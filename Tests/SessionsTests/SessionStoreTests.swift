import EventLoop
import Services
import Sessions
import Testing
import VMHostTesting
import ViewModels

/// Upstream services that must never be called: the store's tests only create, touch and expire sessions.
final class UnusedUpstream: FlickrService, ProductService, @unchecked Sendable {
    struct Unexpected: Error {}
    func search(text: String, page: Int) async throws -> FlickrSearchPage { throw Unexpected() }
    func favoritesCount(photoID: String) async throws -> Int { throw Unexpected() }
    func commentsCount(photoID: String) async throws -> Int { throw Unexpected() }
    func photoInfo(photoID: String) async throws -> PhotoDetail { throw Unexpected() }
    func photoComments(photoID: String) async throws -> [PhotoComment] { throw Unexpected() }
    func fetchPage(_ page: Int) async throws -> ProductPage { throw Unexpected() }
}

/// A hand-moved clock for the store, set by the time elapsed since its start: expiry without sleeping.
@LoopActor
final class ManualTime {
    private let testClock = TestClock()
    /// The store's clock.
    nonisolated var clock: LoopClock { testClock.clock }
    /// The time since the start; setting it moves the clock (forward only).
    var elapsed: Duration = .zero {
        didSet { testClock.advance(by: elapsed - oldValue) }
    }
}

@Suite("SessionStore: limits and idle expiry")
@LoopActor
struct SessionStoreTests {
    let time = ManualTime()
    let upstream = UnusedUpstream()

    func makeStore(idleTimeout: Duration = .seconds(60), maxSessions: Int = 10) -> SessionStore {
        let upstream = upstream
        let time = time
        return SessionStore(
            configuration: SessionStoreConfiguration(idleTimeout: idleTimeout, maxSessions: maxSessions),
            viewModels: [
                ViewModelRegistration(SearchViewModel.self) { SearchViewModel(service: upstream) },
                ViewModelRegistration(ProductListViewModel.self) { ProductListViewModel(service: upstream) },
            ],
            clock: time.clock
        )
    }

    @Test func aSessionExpiresOnlyAfterTheIdleTimeoutWithoutActivity() throws {
        let store = makeStore()
        var removed: [String] = []
        store.onRemove = { session, reason in removed.append("\(session.id) \(reason)") }
        let idle = try store.create()
        let busy = try store.create()

        time.elapsed = .seconds(59)
        #expect(store.session(busy.id) === busy, "a lookup marks the session active")
        store.expireIdleSessions()
        #expect(store.count == 2)
        #expect(removed == [])

        time.elapsed = .seconds(60)
        store.expireIdleSessions()
        #expect(store.count == 1)
        #expect(removed == ["\(idle.id) expired"])
        #expect(idle.isClosed)
        #expect(store.session(idle.id) == nil)
        #expect(!busy.isClosed)

        time.elapsed = .seconds(118)
        store.expireIdleSessions()
        #expect(store.count == 1, "59 s after its last lookup the busy session is still alive")

        time.elapsed = .seconds(119)
        store.expireIdleSessions()
        #expect(store.count == 0)
        #expect(removed == ["\(idle.id) expired", "\(busy.id) expired"])
    }

    @Test func theLimitRefusesNewSessionsUntilOneIsDeleted() throws {
        let store = makeStore(maxSessions: 2)
        var removed: [String] = []
        store.onRemove = { _, reason in removed.append(reason) }
        let first = try store.create()
        _ = try store.create()
        #expect(throws: SessionLimitReached.self) { _ = try store.create() }

        #expect(store.delete(first.id))
        #expect(!store.delete(first.id), "a second delete finds nothing")
        #expect(first.isClosed)
        #expect(removed == ["deleted"])
        _ = try store.create()
        #expect(store.count == 2)
    }

    @Test func idsAreUniqueAndUnguessable() throws {
        let store = makeStore(maxSessions: 1000)
        var ids = Set<String>()
        for _ in 0..<1000 { ids.insert(try store.create().id) }
        #expect(ids.count == 1000)
        #expect(ids.allSatisfy { $0.count >= 22 })
    }

    @Test func closeAllEndsEverySession() throws {
        let store = makeStore()
        var removed: [String] = []
        store.onRemove = { _, reason in removed.append(reason) }
        let sessions = try (0..<3).map { _ in try store.create() }
        store.closeAll()
        #expect(store.count == 0)
        #expect(sessions.allSatisfy { $0.isClosed })
        #expect(removed == ["shutdown", "shutdown", "shutdown"])
    }
}
