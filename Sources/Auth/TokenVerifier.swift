import JSON

/// Checks JWTs (JWS compact form) against configured keys and claims, and remembers the tokens it accepted, so
/// that a client sending the same token on every request costs one dictionary lookup after the first.
///
/// A token is valid when its header's `alg` is the algorithm of the key its `kid` selects (the key decides; the
/// token cannot choose `none` or HS256 against a public key), the signature checks, `exp` is present and not past,
/// `nbf` (when present) is not in the future, each with ``leeway``, `iss` is the issuer, `aud` (a string or an
/// array) holds the audience, and `sub` is a non-empty string.
public final class TokenVerifier {
    /// The clock skew allowed on `exp` and `nbf`, in seconds.
    public static let leeway = 30.0
    /// Tokens remembered at most (accepted ones only: a forged token costs its check every time, and cannot fill
    /// the cache).
    public static let cacheCapacity = 4096
    /// The longest token looked at, in bytes.
    public static let maxTokenBytes = 8192

    public let keys: TokenKeys
    public let issuer: String
    public let audience: String
    /// Now, in seconds since 1970 (injected by tests).
    public let now: @Sendable () -> Double
    private var cache: [String: VerifiedToken] = [:]

    /// A verifier for tokens from `issuer` meant for `audience`.
    public init(
        keys: TokenKeys, issuer: String, audience: String, now: @escaping @Sendable () -> Double = WallClock.now
    ) {
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self.now = now
    }

    /// Tokens remembered now.
    public var cachedCount: Int { cache.count }

    /// The facts of a token accepted earlier under `key` (see ``verify(_:rememberingAs:)``) while it is still valid;
    /// nil when none is remembered, or it has expired since.
    public func remembered(_ key: String) -> VerifiedToken? {
        guard let known = cache[key] else { return nil }
        guard now() <= known.expiresAt + Self.leeway else {
            cache[key] = nil
            return nil
        }
        return known
    }

    /// The token's facts when it is valid now, remembered under `key` (the token itself by default; a caller may
    /// pass the whole header the token came in, so that the next request finds it without taking the header apart).
    /// - Throws: ``TokenRejection`` saying what is wrong.
    public func verify(_ token: String, rememberingAs key: String? = nil) throws(TokenRejection) -> VerifiedToken {
        if let known = remembered(key ?? token) { return known }
        let current = now()
        let verified = try check(token, at: current)
        if cache.count >= Self.cacheCapacity { evict(at: current) }
        cache[key ?? token] = verified
        return verified
    }

    /// Forgets expired tokens, and everything when that is not enough (tokens are re-checked, not refused).
    private func evict(at current: Double) {
        cache = cache.filter { current <= $0.value.expiresAt + Self.leeway }
        if cache.count >= Self.cacheCapacity { cache.removeAll(keepingCapacity: true) }
    }

    private func check(_ token: String, at current: Double) throws(TokenRejection) -> VerifiedToken {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxTokenBytes else { throw TokenRejection("the token is too long") }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let payloadBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2])
        else { throw TokenRejection("the token is not a JWS in compact form") }
        guard let header = try? JSONParser.parse(headerBytes), header.objectValue != nil,
            let payload = try? JSONParser.parse(payloadBytes), payload.objectValue != nil
        else { throw TokenRejection("the token's header or payload is not a JSON object") }
        guard let algorithm = header["alg"]?.stringValue else { throw TokenRejection("the token has no 'alg'") }
        // NB: no JWS extension is understood, so none may be critical (RFC 7515 §4.1.11).
        guard header["crit"] == nil else { throw TokenRejection("the token has critical extensions") }
        let kid = header["kid"]?.stringValue
        guard let key = keys.key(for: kid) else {
            throw TokenRejection(kid.map { "no key has kid '\($0)'" } ?? "the token has no 'kid'")
        }
        guard algorithm == key.algorithm.rawValue else {
            throw TokenRejection("the token's algorithm \(algorithm) is not its key's (\(key.algorithm.rawValue))")
        }
        let signingInput = Array(bytes[..<parts[1].endIndex])
        guard key.verify(signingInput: signingInput, signature: signature) else {
            throw TokenRejection("the token's signature does not check")
        }
        guard let expires = payload["exp"]?.doubleValue else { throw TokenRejection("the token has no 'exp'") }
        guard current <= expires + Self.leeway else { throw TokenRejection("the token has expired") }
        if let notBefore = payload["nbf"] {
            guard let notBefore = notBefore.doubleValue else { throw TokenRejection("the token's 'nbf' is no date") }
            guard notBefore - Self.leeway <= current else { throw TokenRejection("the token is not valid yet") }
        }
        guard payload["iss"]?.stringValue == issuer else { throw TokenRejection("the token's issuer is not accepted") }
        guard Self.audience(payload["aud"], holds: audience) else {
            throw TokenRejection("the token is not meant for this audience")
        }
        guard let subject = payload["sub"]?.stringValue, !subject.isEmpty else {
            throw TokenRejection("the token has no 'sub'")
        }
        return VerifiedToken(subject: subject, expiresAt: expires)
    }

    /// `aud` is a string or an array of strings (RFC 7519 §4.1.3).
    private static func audience(_ claim: JSONValue?, holds audience: String) -> Bool {
        if let single = claim?.stringValue { return single == audience }
        guard let list = claim?.arrayValue else { return false }
        for entry in list where entry.stringValue == audience { return true }
        return false
    }
}
