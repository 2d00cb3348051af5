import Foundation
import HTTPTypes
import Testing

@testable import VMHostClient

/// Commands against a scripted transport: the request each sends, retries with the same `Idempotency-Key`, tokens
/// after a `401`, and a typed error for every API error code.
@Suite struct CommandTests {
    @Test func aCommandIsRetriedWithTheSameIdempotencyKey() async throws {
        let transport = ScriptedTransport { sent in
            switch sent.index {
            case 1: .error(503, "overloaded", retryAfter: 2)
            case 2: .failure(URLError(.networkConnectionLost))
            case 3: .error(502, "bad_gateway")
            case 4: .error(429, "rate_limited", retryAfter: 1)
            default: .json(202, #"{"version":12}"#)
            }
        }
        let delays = Recorder<Duration>()
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(delays), transport: transport)
        let accepted = try await client.session(id: "s1").search.loadMore()
        #expect(accepted.version == 12)
        let sent = transport.sent("loadMoreSearchResults")
        #expect(sent.count == 5)
        let keys = Set(sent.compactMap { $0.header("Idempotency-Key") })
        #expect(keys.count == 1, "every attempt carries the one key")
        #expect(sent.allSatisfy { $0.request.path == "/v1/sessions/s1/search/load-more" && $0.request.method == .post })
        #expect(delays.values.count == 4)
        #expect(delays.values[0] >= .seconds(2), "Retry-After is waited for")
        #expect(delays.values[3] >= .seconds(1))
    }

    @Test func twoCommandsHaveTwoKeys() async throws {
        let transport = ScriptedTransport { _ in .json(202, #"{"version":3}"#) }
        let session = VMHostClient(baseURL: Fixtures.baseURL, transport: transport).session(id: "s1")
        try await session.products.refresh()
        try await session.products.refresh()
        let keys = transport.sent("refreshProducts").compactMap { $0.header("Idempotency-Key") }
        #expect(keys.count == 2 && keys[0] != keys[1])
    }

    @Test func retriesStopAfterTheConfiguredAttemptsWithTheLastError() async throws {
        let transport = ScriptedTransport { _ in .error(429, "rate_limited", retryAfter: 3) }
        var configuration = VMHostClientConfiguration.recording(.init())
        configuration.requestAttempts = 3
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: configuration, transport: transport)
        await #expect {
            try await client.session(id: "s1").products.loadMore()
        } throws: { error in
            guard case .rateLimited(let retryAfter)? = error as? VMHostClientError else { return false }
            return retryAfter == Duration.seconds(3)
        }
        #expect(transport.sent("loadMoreProducts").count == 3)
    }

    @Test func createSessionIsNotSentAgainAfterABrokenConnection() async throws {
        let transport = ScriptedTransport { _ in .failure(URLError(.networkConnectionLost)) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: .recording(.init()), transport: transport)
        await #expect {
            _ = try await client.createSession()
        } throws: { error in
            guard case .transport? = error as? VMHostClientError else { return false }
            return true
        }
        #expect(transport.sent("createSession").count == 1)
    }

    @Test func aFreshTokenIsAskedOnceAfterA401() async throws {
        let tokens = Recorder<String>()
        let transport = ScriptedTransport { sent in
            sent.header("Authorization") == "Bearer t2" ? .json(202, #"{"version":2}"#) : .error(401, "unauthorized")
        }
        let client = VMHostClient(
            baseURL: Fixtures.baseURL,
            token: {
                let token = "t\(tokens.values.count + 1)"
                tokens.append(token)
                return token
            }, transport: transport)
        let accepted = try await client.session(id: "s1").photo.open(photoID: "53012345678")
        #expect(accepted.version == 2)
        #expect(tokens.values == ["t1", "t2"])
        let body = try #require(transport.sent("openPhoto").first?.body)
        #expect(body.contains(#""photoId""#) && body.contains("53012345678"))
    }

    @Test func aSecond401IsUnauthorized() async throws {
        let tokens = Recorder<String>()
        let transport = ScriptedTransport { _ in .error(401, "unauthorized") }
        let client = VMHostClient(
            baseURL: Fixtures.baseURL,
            token: {
                tokens.append("t")
                return "t"
            }, transport: transport)
        await #expect {
            try await client.session(id: "s1").photo.close()
        } throws: { error in
            guard case .unauthorized? = error as? VMHostClientError else { return false }
            return true
        }
        #expect(tokens.values.count == 2)
        #expect(transport.sent("closePhoto").count == 2)
    }

    @Test func waitSendsPreferAndAnswersTheState() async throws {
        let transport = ScriptedTransport { _ in .json(200, Fixtures.search(version: 9, text: "sunset")) }
        let client = VMHostClient(baseURL: Fixtures.baseURL, transport: transport)
        let state = try await client.session(id: "s1").search.execute(text: "sunset", wait: .seconds(10))
        #expect(state.version == 9 && state.searchText == "sunset")
        let sent = try #require(transport.sent("executeSearch").first)
        #expect(sent.header("Prefer") == "wait=10")
        #expect(sent.body?.contains(#""text""#) == true)
    }

    /// Every error code of API.md "Conventions" (and the server's own), each as the case a caller switches on.
    @Test(arguments: [
        (400, "invalid_json", "invalidRequest"), (400, "invalid_field", "invalidRequest"),
        (404, "session_not_found", "sessionNotFound"), (404, "not_found", "invalidRequest"),
        (405, "method_not_allowed", "invalidRequest"), (409, "command_disabled", "commandDisabled"),
        (413, "body_too_large", "invalidRequest"), (422, "idempotency_key_reused", "invalidRequest"),
        (415, "unsupported_media_type", "invalidRequest"), (429, "too_many_sessions", "rateLimited"),
        (429, "too_many_streams", "rateLimited"), (429, "rate_limited", "rateLimited"),
        (401, "unauthorized", "unauthorized"), (403, "forbidden_origin", "invalidRequest"),
        (503, "overloaded", "overloaded"), (500, "internal_error", "server"),
        (501, "method_not_implemented", "server"),
    ])
    func everyErrorCodeIsTyped(status: Int, code: String, expected: String) async throws {
        let transport = ScriptedTransport { _ in
            .error(status, code, retryAfter: [429, 503].contains(status) ? 4 : nil)
        }
        var configuration = VMHostClientConfiguration.recording(.init())
        configuration.requestAttempts = 1
        let client = VMHostClient(baseURL: Fixtures.baseURL, configuration: configuration, transport: transport)
        do {
            try await client.session(id: "s1").search.execute(text: "kittens")
            Issue.record("\(code) did not throw")
        } catch let error as VMHostClientError {
            let message = "because \(code)"
            switch (error, expected) {
            case (.sessionNotFound, "sessionNotFound"), (.unauthorized, "unauthorized"): break
            case (.commandDisabled(let text), "commandDisabled"): #expect(text == message)
            case (.invalidRequest(let errorCode, let text), "invalidRequest"):
                #expect(errorCode == code && text == message)
            case (.rateLimited(let retryAfter), "rateLimited"), (.overloaded(let retryAfter), "overloaded"):
                #expect(retryAfter == Duration.seconds(4))
            case (.server(let errorStatus, let errorCode, let text), "server"):
                #expect(errorStatus == status && errorCode == code && text == message)
            default: Issue.record("\(code) gave \(error), expected \(expected)")
            }
        }
    }
}
