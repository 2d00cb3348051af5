import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing
import VMHostTesting

@testable import VMHostClient

/// The session's event stream against a scripted transport (no sockets): snapshot then patches, resume with
/// `Last-Event-ID`, a patch that does not apply, backoff with `retry:`, `reauth`, cancellation.
@Suite struct StreamBehaviourTests {
    /// The first `count` states of `states`, or fewer if it ends or 10 s pass.
    static func first<State: RemoteState>(_ count: Int, of states: RemoteStates<State>) async throws -> [State] {
        try await withThrowingTaskGroup(of: [State].self) { group in
            group.addTask {
                var collected: [State] = []
                for try await state in states {
                    collected.append(state)
                    if collected.count == count { break }
                }
                return collected
            }
            group.addTask {
                try await Task.sleep(for: .seconds(10))
                return []
            }
            let result = try await group.next() ?? []
            group.cancelAll()
            return result
        }
    }

    @Test func snapshotThenPatchesInOrder() async throws {
        let feed = EventFeed()
        let transport = ScriptedTransport { _ in .stream(feed) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, transport: transport)
        let session = client.session(id: "s1")
        feed.send("retry: 3000\n\n")
        feed.event("search.snapshot", id: "search:1", data: Fixtures.search(version: 1))
        feed.event("products.snapshot", id: "search:1,products:1", data: Fixtures.products(version: 1))
        feed.event("search.patch", id: "search:2,products:1", data: Fixtures.textPatch(version: 2, text: "kit"))
        feed.event("search.patch", id: "search:3,products:1", data: Fixtures.textPatch(version: 3, text: "kittens"))
        let states = try await Self.first(3, of: session.search.states)
        #expect(states.map(\.version) == [1, 2, 3])
        #expect(states.map(\.searchText) == ["", "kit", "kittens"])
        let stream = try #require(transport.sent("streamSession").first)
        #expect(stream.header("Accept-Encoding") == "gzip")
        #expect(stream.header("Last-Event-ID") == nil)
    }

    @Test func aDroppedStreamResumesWithTheVersionsHeldAfterRetry() async throws {
        let feeds = [EventFeed(), EventFeed()]
        let transport = ScriptedTransport { sent in .stream(feeds[min(sent.index, 2) - 1]) }
        let delays = Recorder<Duration>()
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(delays), transport: transport)
        let session = client.session(id: "s1")
        // As the server writes it: `retry:` in the first event's block.
        feeds[0].send("retry: 1500\n")
        feeds[0].event("search.snapshot", data: Fixtures.search(version: 4))
        feeds[0].event("products.snapshot", data: Fixtures.products(version: 2))
        feeds[0].event("photo.snapshot", data: Fixtures.photo(version: 7))
        feeds[0].end()
        // The second connection replays what the first missed: the patch after version 4.
        feeds[1].event("search.patch", data: Fixtures.textPatch(version: 5, text: "sunset"))
        let states = try await Self.first(2, of: session.search.states)
        #expect(states.map(\.version) == [4, 5])
        let streams = transport.sent("streamSession")
        #expect(streams.count == 2)
        #expect(streams.last?.header("Last-Event-ID") == "search:4,products:2,photo:7")
        // The server's retry: (1.5 s), no jitter added: the first reconnection waits exactly that.
        #expect(delays.values.first == .milliseconds(1500))
    }

    @Test func aPatchThatDoesNotApplyAsksForASnapshotAndNeverYieldsAWrongState() async throws {
        let feeds = [EventFeed(), EventFeed()]
        let transport = ScriptedTransport { sent in .stream(feeds[min(sent.index, 2) - 1]) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(.init()), transport: transport)
        let session = client.session(id: "s1")
        feeds[0].event("search.snapshot", data: Fixtures.search(version: 1))
        feeds[0].event("products.snapshot", data: Fixtures.products(version: 1))
        feeds[0].event(
            "search.patch",
            data: #"[{"op":"replace","path":"/version","value":2},{"op":"remove","path":"/noSuchMember"}]"#)
        feeds[0].event("search.patch", data: Fixtures.textPatch(version: 3, text: "never seen"))
        feeds[1].event("search.snapshot", data: Fixtures.search(version: 3, text: "fresh"))
        let states = try await Self.first(2, of: session.search.states)
        #expect(states.map(\.version) == [1, 3])
        #expect(states.last?.searchText == "fresh")
        // The reconnection leaves the search out of the id, so that the server sends its snapshot.
        #expect(transport.sent("streamSession").last?.header("Last-Event-ID") == "products:1")
        #expect(feeds[0].isClosed)
    }

    @Test func aServerThatKeepsSendingWhatCannotApplyIsBackedOff() async throws {
        let good = EventFeed()
        let transport = ScriptedTransport { sent in
            if sent.index < 5 {
                let feed = EventFeed()
                feed.event("search.snapshot", data: #"{"noVersion":true}"#)
                return .stream(feed)
            }
            good.event("search.snapshot", data: Fixtures.search(version: 2))
            return .stream(good)
        }
        let delays = Recorder<Duration>()
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(delays), transport: transport)
        let states = try await Self.first(1, of: client.session(id: "s1").search.states)
        #expect(states.map(\.version) == [2])
        // The first reconnection goes at once; the next ones wait, growing from retry: (3 s by default).
        #expect(delays.values.prefix(3) == [.seconds(3), .seconds(6), .seconds(12)])
    }

    @Test func aSnapshotOlderThanWhatWasSeenIsNotYielded() async throws {
        let feeds = [EventFeed(), EventFeed()]
        let transport = ScriptedTransport { sent in .stream(feeds[min(sent.index, 2) - 1]) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(.init()), transport: transport)
        let session = client.session(id: "s1")
        feeds[0].event("search.snapshot", data: Fixtures.search(version: 6))
        feeds[0].end()
        feeds[1].event("search.snapshot", data: Fixtures.search(version: 5, text: "older"))
        feeds[1].event("search.patch", data: Fixtures.textPatch(version: 7, text: "newer"))
        let states = try await Self.first(2, of: session.search.states)
        #expect(states.map(\.version) == [6, 7])
    }

    @Test func failedConnectionsBackOffExponentiallyFromRetryUpToThirtySeconds() async throws {
        let feed = EventFeed()
        let last = EventFeed()
        let transport = ScriptedTransport { sent in
            if sent.index == 1 {
                feed.send("retry: 2000\n\n")
                feed.end()
                return .stream(feed)
            }
            if sent.index < 9 { return .failure(URLError(.cannotConnectToHost)) }
            last.event("search.snapshot", data: Fixtures.search(version: 1))
            return .stream(last)
        }
        let delays = Recorder<Duration>()
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(delays), transport: transport)
        let states = try await Self.first(1, of: client.session(id: "s1").search.states)
        #expect(states.map(\.version) == [1])
        #expect(
            delays.values.prefix(8) == [2, 4, 8, 16, 30, 30, 30, 30].map { Duration.seconds($0) }[...],
            "retry: 2000, doubled per failure, capped at 30 s")
    }

    @Test func jitterAddsUpToHalfAndNeverWaitsLessThanAsked() {
        var configuration = VMHostClientConfiguration()
        configuration.random = { $0.lowerBound }
        #expect(configuration.backoff(retry: 1, base: .seconds(3), retryAfter: nil) == .seconds(3))
        #expect(configuration.backoff(retry: 3, base: .seconds(3), retryAfter: nil) == .seconds(12))
        #expect(configuration.backoff(retry: 9, base: .seconds(3), retryAfter: nil) == .seconds(30))
        #expect(configuration.backoff(retry: 1, base: .seconds(3), retryAfter: .seconds(7)) == .seconds(7))
        configuration.random = { $0.upperBound }
        #expect(configuration.backoff(retry: 1, base: .seconds(3), retryAfter: nil) == .milliseconds(4500))
        #expect(configuration.backoff(retry: 9, base: .seconds(3), retryAfter: nil) == .seconds(30), "capped")
        #expect(configuration.backoff(retry: 1, base: .seconds(3), retryAfter: .seconds(8)) == .seconds(10))
        // A server asking for more than the cap is obeyed.
        #expect(configuration.backoff(retry: 1, base: .seconds(40), retryAfter: nil) == .seconds(40))
    }

    @Test func tooManyStreamsWaitsForRetryAfter() async throws {
        let feed = EventFeed()
        let transport = ScriptedTransport { sent in
            if sent.index == 1 { return .error(429, "too_many_streams", retryAfter: 9) }
            feed.event("search.snapshot", data: Fixtures.search(version: 1))
            return .stream(feed)
        }
        let delays = Recorder<Duration>()
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(delays), transport: transport)
        let states = try await Self.first(1, of: client.session(id: "s1").search.states)
        #expect(states.count == 1)
        #expect(transport.sent("streamSession").count == 2)
        #expect(try #require(delays.values.first) >= .seconds(9))
    }

    @Test func aProxysBadGatewayIsRetried() async throws {
        let feed = EventFeed()
        let transport = ScriptedTransport { sent in
            switch sent.index {
            case 1: return .response(HTTPResponse(status: .badGateway), HTTPBody("<html>502 Bad Gateway</html>"))
            case 2: return .error(500, "internal_error")
            default:
                feed.event("search.snapshot", data: Fixtures.search(version: 1))
                return .stream(feed)
            }
        }
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(.init()), transport: transport)
        let states = try await Self.first(1, of: client.session(id: "s1").search.states)
        #expect(states.map(\.version) == [1])
        #expect(transport.sent("streamSession").count == 3)
    }

    @Test func aStreamAnswered401AsksForATokenOnceThenEndsUnauthorized() async throws {
        let tokens = Recorder<String>()
        let feed = EventFeed()
        let transport = ScriptedTransport { sent in
            guard sent.header("Authorization") == "Bearer t2" else { return .error(401, "unauthorized") }
            feed.event("search.snapshot", data: Fixtures.search(version: 1))
            return .stream(feed)
        }
        let client = VMHostClient(
            baseURL: Fixtures.baseURL,
            token: {
                let token = "t\(tokens.values.count + 1)"
                tokens.append(token)
                return token
            }, configuration: .recording(.init()), transport: transport)
        let states = try await Self.first(1, of: client.session(id: "s1").search.states)
        #expect(states.map(\.version) == [1], "the fresh token opened the stream")

        let refused = ScriptedTransport { _ in .error(401, "unauthorized") }
        let stale = VMHostClient(
            baseURL: Fixtures.baseURL, token: { "expired" }, configuration: .recording(.init()), transport: refused)
        await #expect {
            for try await _ in stale.session(id: "s1").search.states {}
        } throws: { error in
            guard case .unauthorized? = error as? VMHostClientError else { return false }
            return true
        }
        #expect(refused.sent("streamSession").count == 2, "one retry with a token asked again")
    }

    @Test func anUnknownSessionEndsTheSequenceWithSessionNotFound() async throws {
        let transport = ScriptedTransport { _ in .error(404, "session_not_found") }
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(.init()), transport: transport)
        await #expect {
            for try await _ in client.session(id: "gone").search.states {}
        } throws: { error in
            guard case .sessionNotFound? = error as? VMHostClientError else { return false }
            return true
        }
    }

    @Test func reauthAsksForANewTokenAndResumes() async throws {
        let tokens = Recorder<String>()
        let feeds = [EventFeed(), EventFeed()]
        let transport = ScriptedTransport { sent in .stream(feeds[min(sent.index, 2) - 1]) }
        let client = VMHostClient(
            baseURL: Fixtures.baseURL,
            token: {
                let token = "token-\(tokens.values.count + 1)"
                tokens.append(token)
                return token
            }, configuration: .recording(.init()), transport: transport)
        feeds[0].event("search.snapshot", data: Fixtures.search(version: 1))
        feeds[0].event("reauth", data: #"{"reason":"token_expired"}"#)
        feeds[1].event("search.patch", data: Fixtures.textPatch(version: 2, text: "after reauth"))
        let states = try await Self.first(2, of: client.session(id: "s1").search.states)
        #expect(states.map(\.version) == [1, 2])
        let streams = transport.sent("streamSession")
        #expect(streams.map { $0.header("Authorization") } == ["Bearer token-1", "Bearer token-2"])
        #expect(streams.last?.header("Last-Event-ID") == "search:1")
    }

    @Test func oneStreamIsSharedAndClosesWhenTheLastIterationEnds() async throws {
        let feed = EventFeed()
        let transport = ScriptedTransport { _ in .stream(feed) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, transport: transport)
        let session = client.session(id: "s1")
        feed.event("search.snapshot", data: Fixtures.search(version: 1))
        feed.event("products.snapshot", data: Fixtures.products(version: 1))
        let searchStates = Recorder<Int>()
        let productStates = Recorder<Int>()
        let searching = Task {
            for try await state in session.search.states { searchStates.append(state.version) }
        }
        let listing = Task {
            for try await state in session.products.states { productStates.append(state.version) }
        }
        #expect(await eventually(timeout: .seconds(10)) { searchStates.values == [1] && productStates.values == [1] })
        #expect(transport.sent("streamSession").count == 1, "both sequences ride one stream")
        searching.cancel()
        feed.event("products.patch", data: #"[{"op":"replace","path":"/version","value":2}]"#)
        #expect(await eventually(timeout: .seconds(10)) { productStates.values == [1, 2] })
        #expect(!feed.isClosed, "another sequence still iterates")
        listing.cancel()
        #expect(await eventually(timeout: .seconds(10)) { feed.isClosed }, "the last iteration's end closes it")
        #expect(transport.sent("streamSession").count == 1)
    }

    @Test func sessionObjectsOfOneIDShareTheStream() async throws {
        let feed = EventFeed()
        let transport = ScriptedTransport { _ in .stream(feed) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, transport: transport)
        let first = client.session(id: "s1")
        let again = client.session(id: "s1")
        feed.event("search.snapshot", data: Fixtures.search(version: 3))
        feed.event("products.snapshot", data: Fixtures.products(version: 4))
        let searchStates = Recorder<Int>()
        let productStates = Recorder<Int>()
        let searching = Task { for try await state in first.search.states { searchStates.append(state.version) } }
        let listing = Task { for try await state in again.products.states { productStates.append(state.version) } }
        #expect(await eventually(timeout: .seconds(10)) { searchStates.values == [3] && productStates.values == [4] })
        #expect(transport.sent("streamSession").count == 1)
        searching.cancel()
        listing.cancel()
    }
}
