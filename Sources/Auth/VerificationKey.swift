import CCrypto
import JSON

/// The JWS algorithms vmhost accepts, each bound to one kind of key.
public enum SignatureAlgorithm: String, Sendable {
    case hs256 = "HS256"
    case rs256 = "RS256"
    case es256 = "ES256"
    case edDSA = "EdDSA"
}

/// A key that checks token signatures: an HS256 secret, or a public key from a JWKS.
///
/// The key fixes the algorithm: a token whose header names another one is refused, whatever it says (`none`, or
/// HS256 against an RSA key with the public key as the HMAC secret). The checks are libcrypto's (CCrypto).
public final class VerificationKey {
    /// The algorithm every token checked with this key must use.
    public let algorithm: SignatureAlgorithm
    /// The JWK's `kid`, if any.
    public let id: String?
    private let secret: [UInt8]
    private let publicKey: OpaquePointer?

    /// The smallest RSA modulus accepted.
    public static let minimumRSABits = 2048

    /// An HS256 key.
    public init(hs256Secret secret: [UInt8], id: String? = nil) {
        algorithm = .hs256
        self.id = id
        self.secret = secret
        publicKey = nil
    }

    /// A key from one JWK of a JWKS: `kty` RSA (`n`, `e`), EC with `crv` P-256 (`x`, `y`), or OKP with `crv` Ed25519
    /// (`x`). A JWK's `alg`, when present, must be the one its key type implies, and its `use`, when present, `sig`.
    /// - Throws: ``KeyError`` naming what is wrong.
    public init(jwk: JSONValue) throws(KeyError) {
        guard jwk.objectValue != nil, let type = jwk["kty"]?.stringValue else {
            throw KeyError(description: "a JWK without 'kty'")
        }
        let id = jwk["kid"]?.stringValue
        let name = id.map { "JWK '\($0)'" } ?? "a JWK"
        func field(_ key: String) throws(KeyError) -> [UInt8] {
            guard let text = jwk[key]?.stringValue, let bytes = Base64URL.decode(text.utf8), !bytes.isEmpty else {
                throw KeyError(description: "\(name): '\(key)' is missing or not base64url")
            }
            return bytes
        }
        let curve = jwk["crv"]?.stringValue
        var key: OpaquePointer?
        let algorithm: SignatureAlgorithm
        switch (type, curve) {
        case ("RSA", _):
            algorithm = .rs256
            let n = try field("n")
            let e = try field("e")
            key = vmh_rsa_public_key(n, n.count, e, e.count)
            if let key, Int(vmh_public_key_rsa_bits(key)) < Self.minimumRSABits {
                vmh_public_key_free(key)
                throw KeyError(description: "\(name): an RSA key of fewer than \(Self.minimumRSABits) bits")
            }
        case ("EC", "P-256"):
            algorithm = .es256
            let x = try field("x")
            let y = try field("y")
            key = vmh_p256_public_key(x, x.count, y, y.count)
        case ("OKP", "Ed25519"):
            algorithm = .edDSA
            let x = try field("x")
            key = vmh_ed25519_public_key(x, x.count)
        default:
            throw KeyError(
                description: "\(name): kty '\(type)'\(curve.map { " crv '\($0)'" } ?? "") is not supported "
                    + "(RSA, EC P-256 or OKP Ed25519)")
        }
        guard let key else { throw KeyError(description: "\(name): libcrypto refused the key's parameters") }
        if let alg = jwk["alg"]?.stringValue, alg != algorithm.rawValue {
            vmh_public_key_free(key)
            throw KeyError(description: "\(name): 'alg' \(alg) does not fit its key type (\(algorithm.rawValue))")
        }
        if let use = jwk["use"]?.stringValue, use != "sig" {
            vmh_public_key_free(key)
            throw KeyError(description: "\(name): 'use' is '\(use)', not 'sig'")
        }
        self.algorithm = algorithm
        self.id = id
        secret = []
        publicKey = key
    }

    deinit {
        vmh_public_key_free(publicKey)
    }

    /// Whether `signature` is this key's signature of `signingInput` (the JWS `header.payload` text).
    public func verify(signingInput: [UInt8], signature: [UInt8]) -> Bool {
        switch algorithm {
        case .hs256:
            vmh_verify_hs256(secret, secret.count, signingInput, signingInput.count, signature, signature.count) == 1
        case .rs256:
            vmh_verify_rs256(publicKey, signingInput, signingInput.count, signature, signature.count) == 1
        case .es256:
            vmh_verify_es256(publicKey, signingInput, signingInput.count, signature, signature.count) == 1
        case .edDSA:
            vmh_verify_ed25519(publicKey, signingInput, signingInput.count, signature, signature.count) == 1
        }
    }
}

/// A key or key source that cannot be used; the message says why.
public struct KeyError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String

    /// An error with this message.
    public init(description: String) {
        self.description = description
    }
}
