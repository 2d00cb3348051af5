import Auth
import CCryptoTesting
import Foundation
import JSON
import Testing
import VMHostTesting

@testable import VMHostClient

#if canImport(Glibc)
import Glibc
#endif

/// The client and the server's authentication together: a stream whose token expires ends with `event: reauth`;
/// the client asks its `token` closure again, resumes with `Last-Event-ID`, and the states go on with no error
/// and no version missed.
@Suite struct ReauthEndToEndTests {
    static let issuer = "https://login.client-test"
    static let audience = "vmhost-client-test"
    static let secret = Array("a client test secret of more than thirty-two bytes".utf8)

    /// Hands out tokens: short-lived ones (2 s left of the server's 30 s leeway) until `renew()`, then long ones.
    final class Tokens: @unchecked Sendable {
        private let lock = NSLock()
        private var short = true
        private var issued = 0

        func next() -> String {
            let now = Date().timeIntervalSince1970
            let expires = lock.withLock { () -> Double in
                issued += 1
                return short ? now - 28 : now + 3600
            }
            return ReauthEndToEndTests.hs256(subject: "carol", expires: expires)
        }

        func renew() { lock.withLock { short = false } }
        var count: Int { lock.withLock { issued } }
    }

    static func hs256(subject: String, expires: Double) -> String {
        let header: JSONValue = ["alg": "HS256", "typ": "JWT"]
        let claims: JSONValue = [
            "sub": .string(subject), "iss": .string(issuer), "aud": .string(audience), "exp": .int(Int(expires)),
        ]
        let input = Base64URL.encode(header.serializedBytes) + "." + Base64URL.encode(claims.serializedBytes)
        let bytes = Array(input.utf8)
        var mac = [UInt8](repeating: 0, count: 32)
        _ = vmh_testing_hs256(secret, secret.count, bytes, bytes.count, &mac)
        return input + "." + Base64URL.encode(mac)
    }

    @Test func aStreamWhoseTokenExpiresGoesOnWithAFreshToken() async throws {
        let path = "/tmp/vmhost-client-reauth-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).secret"
        guard let file = fopen(path, "wb") else { throw TestClientError("cannot write \(path)") }
        _ = fwrite(Self.secret, 1, Self.secret.count, file)
        fclose(file)
        defer { unlink(path) }
        let server = try await InProcessServer.start { configuration in
            configuration.authHS256SecretFile = path
            configuration.authIssuer = Self.issuer
            configuration.authAudience = Self.audience
        }
        do {
            let tokens = Tokens()
            let transport = RecordingTransport()
            let client = VMHostClient(baseURL: server.baseURL, token: { tokens.next() }, transport: transport)
            let session = try await client.createSession()
            let search = EndToEndTests.Watch(session.search.states)
            #expect(await search.until { $0.version >= 1 } != nil)
            let before = try #require(search.states.last?.version)
            tokens.renew()
            // The stream's token expires within 2 s: the server sends reauth and ends it; the client reconnects.
            #expect(await eventually(timeout: .seconds(20)) { transport.responses("streamSession").count >= 2 })
            _ = try await session.search.setText("after reauth")
            let after = await search.until { $0.searchText == "after reauth" }
            #expect(after != nil, "the states go on after the reauth")
            #expect(search.error == nil && !search.hasEnded)
            #expect(EndToEndTests.strictlyIncreasing(search.states.map(\.version)))
            #expect((after?.version ?? 0) > before)
            #expect(transport.responses("streamSession").allSatisfy { $0.status == .ok })
            #expect(tokens.count >= 3, "the token was asked again for the resumed stream")
            search.cancel()
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
