/// A hash that is the same in every run and on every platform (Swift's `Hasher` is seeded per process), so the
/// fake upstream's data depends only on the request.
enum StableHash {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// FNV-1a (64 bit) of the UTF-8 bytes of `text`.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash = offsetBasis
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* prime
        }
        return hash
    }

    /// Mixes `value` with `salt` into a well-spread 64-bit number (the SplitMix64 finaliser).
    static func mix(_ value: UInt64, _ salt: UInt64) -> UInt64 {
        var z = value &+ (salt &+ 1) &* 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// An index into a collection of `count` elements derived from `value` and `salt`.
    static func pick(_ value: UInt64, _ salt: UInt64, count: Int) -> Int {
        Int(mix(value, salt) % UInt64(max(count, 1)))
    }
}
