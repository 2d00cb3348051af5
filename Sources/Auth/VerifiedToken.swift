import CCrypto

/// What a valid token says that vmhost uses.
public struct VerifiedToken: Sendable, Equatable {
    /// The token's `sub`.
    public var subject: String
    /// The SHA-256 of `sub` in hex: what sessions are bound to and what the journal stores (a subject may be an
    /// e-mail address; Redis never sees it).
    public var subjectKey: String
    /// `exp`, in seconds since 1970.
    public var expiresAt: Double

    /// A token's facts; ``subjectKey`` is derived from `subject`.
    public init(subject: String, expiresAt: Double) {
        self.subject = subject
        self.subjectKey = Self.key(of: subject)
        self.expiresAt = expiresAt
    }

    /// The hex SHA-256 of a subject.
    public static func key(of subject: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(VMH_SHA256_LENGTH))
        let bytes = Array(subject.utf8)
        guard vmh_sha256(bytes, bytes.count, &digest) == 1 else { return "" }
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 15)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}

/// Why a token was refused (the text of the `401`'s message).
public struct TokenRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String

    /// A rejection with this reason.
    public init(_ description: String) {
        self.description = description
    }
}
