import JSON

/// The keys tokens are checked with, by `kid`: one HS256 secret, or the keys of a JWKS.
public struct TokenKeys {
    /// Every key, in the order given.
    public let keys: [VerificationKey]
    private let byID: [String: VerificationKey]

    /// The shortest HS256 secret accepted, in bytes (RFC 7518 §3.2: at least the hash's size).
    public static let minimumSecretBytes = 32

    /// Keys from a list (ids must be unique).
    public init(_ keys: [VerificationKey]) throws(KeyError) {
        guard !keys.isEmpty else { throw KeyError(description: "no keys") }
        var byID: [String: VerificationKey] = [:]
        for key in keys {
            guard let id = key.id else { continue }
            guard byID[id] == nil else { throw KeyError(description: "two keys with kid '\(id)'") }
            byID[id] = key
        }
        self.keys = keys
        self.byID = byID
    }

    /// The HS256 key from a secret file's bytes, trailing white space trimmed (a file written by `echo` ends in a
    /// newline that is not part of the secret).
    public static func hs256(secretFile bytes: [UInt8]) throws(KeyError) -> TokenKeys {
        var secret = bytes[...]
        while let last = secret.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D {
            secret = secret.dropLast()
        }
        guard secret.count >= minimumSecretBytes else {
            throw KeyError(
                description: "the HS256 secret has \(secret.count) bytes; at least \(minimumSecretBytes) are needed")
        }
        return try TokenKeys([VerificationKey(hs256Secret: Array(secret))])
    }

    /// The keys of a JWKS document (`{"keys": [JWK, …]}`); keys marked for another `use` than `sig` are refused.
    public static func jwks(_ bytes: [UInt8]) throws(KeyError) -> TokenKeys {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw KeyError(description: "not valid JSON: \(error)")
        }
        guard let list = document["keys"]?.arrayValue, !list.isEmpty else {
            throw KeyError(description: "a JWKS needs a non-empty 'keys' array")
        }
        var keys: [VerificationKey] = []
        for jwk in list {
            keys.append(try VerificationKey(jwk: jwk))
        }
        if keys.count > 1, keys.contains(where: { $0.id == nil }) {
            throw KeyError(description: "with more than one key, every key needs a 'kid'")
        }
        return try TokenKeys(keys)
    }

    /// The key for a token whose header has `kid` (or none): the key with that id, or the only key when the set
    /// has one key without an id. Nil for an unknown `kid`.
    public func key(for kid: String?) -> VerificationKey? {
        if keys.count == 1, keys[0].id == nil { return keys[0] }
        guard let kid else { return keys.count == 1 ? keys[0] : nil }
        return byID[kid]
    }
}
