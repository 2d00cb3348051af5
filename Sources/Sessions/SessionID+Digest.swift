import CCrypto

extension SessionID {
    /// The number of SHA-256 bytes a digest keeps: 144 bits, 24 base64url characters with no padding.
    static let digestBytes = 18

    /// What stands for session `id` wherever the id itself must not appear (Redis keys, log lines): the first
    /// 144 bits of its SHA-256, base64url (24 characters). The id is the capability to use the session; the
    /// digest names it without granting it, and cannot be turned back into it.
    ///
    /// NB: SHA-256 is libcrypto's (CCrypto), never code of ours. HAProxy's stick table keys sessions by the same
    /// digest (`sha2(256),bytes(0,18),ub64enc`), so a proxy entry, a log line and a Redis key of one session
    /// carry one name.
    public static func digest(_ id: String) -> String {
        var digest = [UInt8](repeating: 0, count: Int(VMH_SHA256_LENGTH))
        var bytes = Array(id.utf8)
        let ok = bytes.withUnsafeMutableBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                vmh_sha256(input.baseAddress, input.count, output.baseAddress) == 1
            }
        }
        // NB: libcrypto's SHA-256 fails only when it cannot allocate. A constant would merge sessions in Redis; a
        // random name (never the id) keeps them apart, at worst losing this session for other processes.
        guard ok else { return "x" + randomPart() + "x" }
        return base64URL(Array(digest.prefix(digestBytes)))
    }
}
