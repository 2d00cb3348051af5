import Auth
import JSON
import JSONPatch
import Testing
import VMHost
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Authentication per API.md ("Authentication, limits and abuse"), against the real server with tokens minted
/// here: HS256 from a secret file, RS256, ES256 and EdDSA from a JWKS file.
@Suite("Authentication: JWTs, subjects and streams")
struct AuthenticationTests {
    /// A fixed "now" for the checks of `exp` and `nbf` (seconds since 1970).
    static let now = 1_900_000_000.0

    /// Runs `body` with an application checking HS256 tokens, whose wall clock is `clock`.
    static func withHS256App(
        via transport: TestTransport = .live, clock: TestWallClock? = nil,
        _ configure: @escaping (inout VMHostConfiguration) -> Void = { _ in },
        _ body: (TestApplication) async throws -> Void
    ) async throws {
        let path = try TestTokens.file(TestTokens.secret + Array("\n".utf8), name: "secret")
        defer { unlink(path) }
        let fixed = now
        let wallClock: @Sendable () -> Double = if let clock { { clock.now } } else { { fixed } }
        try await withApp(
            via: transport,
            {
                $0.authHS256SecretFile = path
                $0.authIssuer = TestTokens.issuer
                $0.authAudience = TestTokens.audience
                configure(&$0)
            }, wallClock: wallClock, body)
    }

    static func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer \(token)")] }

    /// A valid HS256 token for `subject` at ``now``.
    static func token(_ subject: String, expires: Double = now + 3600) -> String {
        TestTokens.hs256(TestTokens.claims(subject, expires: expires))
    }

    /// Expects `401 unauthorized` with the challenge and the JSON error.
    static func expectUnauthorized(_ response: TestHTTPResponse, _ comment: Comment? = nil) {
        #expect(response.status == 401, comment)
        #expect(response.header("WWW-Authenticate") == #"Bearer error="invalid_token""#, comment)
        #expect(response.json?["error"]?["code"] == "unauthorized", comment)
    }

    @Test func aValidTokenIsNeededAndTheClaimsAreChecked() async throws {
        try await Self.withHS256App(via: .router) { app in
            let client = app.client
            Self.expectUnauthorized(try await client.post("/v1/sessions"), "no token")
            let created = try await client.post("/v1/sessions", headers: Self.bearer(Self.token("alice")))
            #expect(created.status == 201)
            let id = try #require(created.json?["id"]?.stringValue)
            Self.expectUnauthorized(try await client.get("/v1/sessions/\(id)"), "no token on a session route")

            let claims = { (extra: [String: JSONValue]) in
                TestTokens.claims("alice", expires: Self.now + 60, extra: extra)
            }
            let refused: [(String, String)] = [
                ("alg none", TestTokens.jwt(header: ["alg": "none"], claims: claims([:])) { _ in [] }),
                ("expired past the leeway", TestTokens.hs256(claims(["exp": .int(Int(Self.now) - 31)]))),
                ("not valid yet past the leeway", TestTokens.hs256(claims(["nbf": .int(Int(Self.now) + 31)]))),
                (
                    "no exp",
                    TestTokens.hs256(
                        .object(
                            JSONObject([
                                ("sub", "alice"), ("iss", .string(TestTokens.issuer)),
                                ("aud", .string(TestTokens.audience)),
                            ])))
                ),
                ("wrong iss", TestTokens.hs256(claims(["iss": "https://elsewhere.test"]))),
                ("wrong aud", TestTokens.hs256(claims(["aud": "another-service"]))),
                ("aud array without ours", TestTokens.hs256(claims(["aud": ["a", "b"]]))),
                (
                    "another secret",
                    TestTokens.hs256(claims([:]), secret: Array("another secret of more than 32 bytes....".utf8))
                ),
                ("no sub", TestTokens.hs256(claims(["sub": ""]))),
                ("not a JWT", "abc.def"),
            ]
            for (reason, token) in refused {
                Self.expectUnauthorized(
                    try await client.get("/v1/sessions/\(id)", headers: Self.bearer(token)), "\(reason)")
            }
            // A bad signature: the last character of a valid token changed.
            var forged = Array(Self.token("alice").utf8)
            forged[forged.count - 2] =
                forged[forged.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            Self.expectUnauthorized(
                try await client.get(
                    "/v1/sessions/\(id)", headers: Self.bearer(String(decoding: forged, as: UTF8.self))),
                "bad signature")

            let accepted: [(String, String)] = [
                ("expired within the leeway", TestTokens.hs256(claims(["exp": .int(Int(Self.now) - 29)]))),
                ("not before within the leeway", TestTokens.hs256(claims(["nbf": .int(Int(Self.now) + 29)]))),
                ("aud array with ours", TestTokens.hs256(claims(["aud": ["other", .string(TestTokens.audience)]]))),
            ]
            for (reason, token) in accepted {
                #expect(
                    try await client.get("/v1/sessions/\(id)", headers: Self.bearer(token)).status == 200, "\(reason)")
            }
        }
    }

    @Test func theTokenComesFromTheHeaderOrTheCookieNeverTheQuery() async throws {
        try await Self.withHS256App { app in
            let token = Self.token("alice")
            let id = try #require(
                try await app.client.post("/v1/sessions", headers: Self.bearer(token)).json?["id"]?.stringValue)
            let cookie = [("Cookie", "theme=dark; vmhost_token=\(token); other=1")]
            #expect(try await app.client.get("/v1/sessions/\(id)", headers: cookie).status == 200)
            let stream = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/search/events", headers: cookie)
            #expect(stream.status == 200, "EventSource sends the cookie")
            #expect(try await stream.next()?.event == "snapshot")
            stream.close()
            // In the query, even next to a valid header, a token is refused.
            Self.expectUnauthorized(
                try await app.client.get("/v1/sessions/\(id)?access_token=\(token)", headers: Self.bearer(token)))
            Self.expectUnauthorized(try await app.client.get("/v1/sessions/\(id)/search/events?vmhost_token=\(token)"))
            // Operations and the client stay open.
            for path in ["/healthz", "/metrics", "/", "/openapi.json"] {
                #expect(try await app.client.get(path).status == 200, "\(path)")
            }
        }
    }

    @Test func anotherSubjectsSessionReadsLikeAMissingOne() async throws {
        try await Self.withHS256App(via: .router) { app in
            let alice = Self.bearer(Self.token("alice"))
            let bob = Self.bearer(Self.token("bob"))
            let id = try #require(try await app.client.post("/v1/sessions", headers: alice).json?["id"]?.stringValue)
            let foreign = try await app.client.get("/v1/sessions/\(id)", headers: bob)
            // A well-formed id that never existed, for comparison.
            let missingID = String(id.reversed())
            let missing = try await app.client.get("/v1/sessions/\(missingID)", headers: bob)
            #expect(foreign.status == 404 && missing.status == 404)
            #expect(foreign.json?["error"]?["code"] == "session_not_found")
            #expect(
                foreign.text.replacing(id, with: "ID") == missing.text.replacing(missingID, with: "ID"),
                "the same answer as for a missing session")
            for (method, path) in [
                ("POST", "/v1/sessions/\(id)/search/text"), ("GET", "/v1/sessions/\(id)/search"),
                ("GET", "/v1/sessions/\(id)/events"), ("DELETE", "/v1/sessions/\(id)"),
            ] {
                let response = try await app.client.request(
                    method, path, headers: bob, json: method == "POST" ? ["text": "stolen"] : nil)
                #expect(response.status == 404, "\(method) \(path)")
            }
            let own = try await app.client.get("/v1/sessions/\(id)/search", headers: alice)
            #expect(own.status == 200)
            #expect(own.json?["searchText"] == "", "bob changed nothing")
        }
    }

    @Test func maxSessionsPerSubjectIsEnforced() async throws {
        try await Self.withHS256App(via: .router, { $0.maxSessionsPerSubject = 2 }) { app in
            let alice = Self.bearer(Self.token("alice"))
            let first = try #require(try await app.client.post("/v1/sessions", headers: alice).json?["id"]?.stringValue)
            #expect(try await app.client.post("/v1/sessions", headers: alice).status == 201)
            let third = try await app.client.post("/v1/sessions", headers: alice)
            #expect(third.status == 429)
            #expect(third.json?["error"]?["code"] == "too_many_sessions")
            #expect(third.header("Retry-After") != nil)
            #expect(try await app.client.post("/v1/sessions", headers: Self.bearer(Self.token("bob"))).status == 201)
            #expect(try await app.client.request("DELETE", "/v1/sessions/\(first)", headers: alice).status == 204)
            #expect(
                try await app.client.post("/v1/sessions", headers: alice).status == 201, "a deleted one frees a place")
        }
    }

    @Test func asymmetricKeysFromAJWKSAndTheAlgorithmFromTheKey() async throws {
        let rsa = try TestSigningKey(.rsa, kid: "rsa-1")
        let p256 = try TestSigningKey(.p256, kid: "ec-1")
        let ed25519 = try TestSigningKey(.ed25519, kid: "ed-1")
        let jwks: JSONValue = ["keys": [rsa.jwk, p256.jwk, ed25519.jwk]]
        let path = try TestTokens.file(jwks.serializedBytes, name: "jwks.json")
        defer { unlink(path) }
        let fixed = Self.now
        try await withApp(
            via: .router,
            {
                $0.authJWKSFile = path
                $0.authIssuer = TestTokens.issuer
                $0.authAudience = TestTokens.audience
            }, wallClock: { fixed }
        ) { app in
            let claims = TestTokens.claims("carol", expires: Self.now + 60)
            var id = ""
            for key in [rsa, p256, ed25519] {
                let response = try await app.client.post(
                    "/v1/sessions", headers: Self.bearer(TestTokens.signed(claims, with: key)))
                #expect(response.status == 201, "\(key.kind)")
                id = response.json?["id"]?.stringValue ?? id
            }
            // HS256 with the RSA key's kid, the MAC keyed by the public key's JWK text: the key says RS256.
            let confused = TestTokens.hs256(
                claims, secret: rsa.jwk.serializedBytes, header: ["alg": "HS256", "kid": "rsa-1"])
            Self.expectUnauthorized(try await app.client.get("/v1/sessions/\(id)", headers: Self.bearer(confused)))
            let none = TestTokens.jwt(header: ["alg": "none", "kid": "rsa-1"], claims: claims) { _ in [] }
            Self.expectUnauthorized(try await app.client.get("/v1/sessions/\(id)", headers: Self.bearer(none)))
            // ES256 named, signed by the Ed25519 key under the EC key's kid: the wrong key for the signature.
            let swapped = TestTokens.jwt(header: ["alg": "ES256", "kid": "ec-1"], claims: claims) { ed25519.sign($0) }
            Self.expectUnauthorized(try await app.client.get("/v1/sessions/\(id)", headers: Self.bearer(swapped)))
            let unknownKid = TestTokens.jwt(header: ["alg": "RS256", "kid": "rsa-2"], claims: claims) { rsa.sign($0) }
            Self.expectUnauthorized(try await app.client.get("/v1/sessions/\(id)", headers: Self.bearer(unknownKid)))
            #expect(
                try await app.client.get(
                    "/v1/sessions/\(id)", headers: Self.bearer(TestTokens.signed(claims, with: rsa))
                )
                .status == 200)
        }
    }

    @Test func aStreamEndsWithReauthAtExpiryAndAResumeMissesNothing() async throws {
        let expires = Self.now
        // The token has 5 s left of its leeway when the stream opens: the stream ends 5 s (real time) later.
        // NB: 5, not 2: on a loaded machine (the full suite beside two busy loops) a command and its patch took
        // more than 2 s, and the stream ended first.
        let clock = TestWallClock(expires + TokenVerifier.leeway - 5)
        try await Self.withHS256App(clock: clock) { app in
            let fresh = Self.bearer(Self.token("alice", expires: Self.now + 3600))
            let id = try #require(try await app.client.post("/v1/sessions", headers: fresh).json?["id"]?.stringValue)
            let opened = ContinuousClock.now
            let stream = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/search/events",
                headers: Self.bearer(Self.token("alice", expires: expires)))
            #expect(stream.status == 200)
            var state = try #require(try await stream.next()?.json)
            var lastID = "1"
            _ = try await app.client.post("/v1/sessions/\(id)/search/text", json: ["text": "one"], headers: fresh)
            let patch = try #require(try await stream.next())
            #expect(patch.event == "patch")
            state = try JSONPatch.apply(JSONPatch.parse(try #require(patch.json)), to: state)
            lastID = patch.id ?? lastID
            let reauth = try #require(try await stream.next())
            #expect(reauth.event == "reauth")
            #expect(reauth.json == ["reason": "token_expired"])
            #expect(ContinuousClock.now - opened >= .milliseconds(4900), "not before exp plus the leeway")
            #expect(try await stream.hasEnded())
            // The stream of every view model ends the same way.
            clock.set(expires + TokenVerifier.leeway - 1)
            let all = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/events",
                headers: Self.bearer(Self.token("alice", expires: expires)))
            var names: [String] = []
            while let event = try await all.next() { names.append(event.event) }
            #expect(names == ["search.snapshot", "products.snapshot", "photo.snapshot", "reauth"])
            // Changes while the client is away, then a resume with a fresh token.
            for text in ["two", "three", "four"] {
                _ = try await app.client.post(
                    "/v1/sessions/\(id)/search/text", json: .object(JSONObject([("text", .string(text))])),
                    headers: fresh)
            }
            let resumed = try await TestEventStream(
                port: app.port, path: "/v1/sessions/\(id)/search/events",
                headers: fresh + [("Last-Event-ID", lastID)])
            #expect(resumed.status == 200)
            let target = try #require(try await app.client.get("/v1/sessions/\(id)/search", headers: fresh).json)
            var events: [String] = []
            while state["version"] != target["version"] {
                let event = try #require(try await resumed.next())
                events.append(event.event)
                state = try JSONPatch.apply(JSONPatch.parse(try #require(event.json)), to: state)
            }
            #expect(events == ["patch", "patch", "patch"], "exactly the missed patches")
            #expect(state == target)
            resumed.close()
        }
    }

    @Test func theBindingSurvivesAJournalTakeover() async throws {
        let redis = try RedisServerProcess()
        try await redis.start()
        defer { redis.stop() }
        let path = try TestTokens.file(TestTokens.secret, name: "secret")
        defer { unlink(path) }
        let fixed = Self.now
        let configure = { (node: String) in
            { (configuration: inout VMHostConfiguration) in
                configuration.redisURL = redis.url()
                configuration.nodeID = node
                configuration.authHS256SecretFile = path
                configuration.authIssuer = TestTokens.issuer
                configuration.authAudience = TestTokens.audience
            }
        }
        let alice = Self.bearer(Self.token("alice"))
        let bob = Self.bearer(Self.token("bob"))
        try await withApp(via: .router, configure("first"), wallClock: { fixed }) { first in
            #expect(try await eventually { try await first.client.get("/healthz").json?["journal"] == "ok" })
            let id = try #require(try await first.client.post("/v1/sessions", headers: alice).json?["id"]?.stringValue)
            #expect(
                try await first.client.post(
                    "/v1/sessions/\(id)/search/text", json: ["text": "mine"], headers: alice
                ).status == 200)
            try await withApp(configure("second"), wallClock: { fixed }) { second in
                #expect(try await eventually { try await second.client.get("/healthz").json?["journal"] == "ok" })
                let foreign = try await second.client.get("/v1/sessions/\(id)", headers: bob)
                #expect(foreign.status == 404, "another subject cannot take the session over")
                #expect(foreign.json?["error"]?["code"] == "session_not_found")
                let taken = try await second.client.get("/v1/sessions/\(id)/search", headers: alice)
                #expect(taken.status == 200)
                #expect(taken.header("X-VMHost-Node") == "second")
                #expect(taken.json?["searchText"] == "mine")
                #expect(try await second.client.get("/v1/sessions/\(id)", headers: bob).status == 404)
            }
        }
    }

    @Test func configurationMistakesAreClearAtStart() async throws {
        #expect(throws: ConfigurationError.self) {
            try VMHostConfiguration.load(file: nil, environment: [:], flags: ["authHs256SecretFile": "/tmp/x"])
        }
        #expect(throws: ConfigurationError.self) {
            try VMHostConfiguration.load(file: nil, environment: [:], flags: ["authIssuer": "a", "authAudience": "b"])
        }
        let short = try TestTokens.file(Array("short secret\n\n".utf8), name: "short")
        defer { unlink(short) }
        do {
            try await withApp({
                $0.authHS256SecretFile = short
                $0.authIssuer = "i"
                $0.authAudience = "a"
            }) { _ in Issue.record("started with a 12-byte secret") }
        } catch let error as VMHostStartError {
            #expect(error.description.contains("at least 32"), "\(error)")
        }
        let badJWKS = try TestTokens.file(
            Array(#"{"keys": [{"kty": "RSA", "n": "AQAB", "e": "AQAB"}]}"#.utf8), name: "jwks")
        defer { unlink(badJWKS) }
        do {
            try await withApp({
                $0.authJWKSFile = badJWKS
                $0.authIssuer = "i"
                $0.authAudience = "a"
            }) { _ in Issue.record("started with a 17-bit RSA key") }
        } catch let error as VMHostStartError {
            #expect(error.description.contains("RSA"), "\(error)")
        }
    }

    /// The executable says at start whether sessions are bearer capabilities, and refuses a short secret clearly.
    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func theExecutableSaysWhereAuthenticationStands() async throws {
        let log = "/tmp/vmhost-auth-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(log) }
        let open = try SpawnedProcess(
            ExecutableTests.binary, ["--port", "0", "--log-level", "info"], standardError: log)
        let announced = await eventually {
            ((try? String(contentsOfLog: log)) ?? "").contains(
                "authentication is off: sessions are bearer capabilities")
        }
        #expect(announced)
        open.signal(SIGTERM)
        #expect(try await open.exit().value.0 == 0)

        let short = try TestTokens.file(Array("too short\n".utf8), name: "short")
        defer { unlink(short) }
        let refused = try SpawnedProcess(
            ExecutableTests.binary,
            [
                "--port", "0", "--auth-hs256-secret-file", short, "--auth-issuer", "https://login.test",
                "--auth-audience", "vmhost",
            ],
            standardError: log)
        #expect(try await refused.exit().value.0 != 0)
        #expect(try String(contentsOfLog: log).contains("at least 32"))
    }
}
