/// Session ids: 128 bits from the kernel's CSPRNG, base64url without padding (22 characters), then
/// `.<node tag>` when the creating node has one (`Hk3v0yQW5kq1m2Zr7c0b3A.n1`).
///
/// Knowing the id is the capability to use the session; the tag only names the node that created it, so a
/// proxy can send every request of the session there (docs/cluster.md). Any node serves any well-formed id:
/// the tag is a routing hint, never checked against the node.
public enum SessionID {
    /// A new random id, tagged with `nodeTag` when it is a valid tag (see ``isValidNodeTag(_:)``).
    public static func generate(nodeTag: String? = nil) -> String {
        let random = randomPart()
        guard let nodeTag, isValidNodeTag(nodeTag) else { return random }
        return random + "." + nodeTag
    }

    /// Whether `tag` can end an id: 1 to 32 characters of the base64url alphabet (so the id stays one path
    /// segment with no escaping, and `.` separates it from the random part).
    public static func isValidNodeTag(_ tag: String) -> Bool {
        (1...32).contains(tag.utf8.count) && tag.utf8.allSatisfy { alphabet.contains($0) }
    }

    /// The 22 random characters.
    static func randomPart() -> String {
        // NB: SystemRandomNumberGenerator is the platform CSPRNG (getrandom(2) on Linux).
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let word = generator.next()
            for shift in stride(from: 0, to: 64, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
            }
        }
        return base64URL(bytes)
    }

    /// Whether `text` has the shape of an id, tagged or not (so junk is rejected before any lookup).
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = text.utf8
        let random = bytes.prefix(22)
        guard random.count == 22, random.allSatisfy({ alphabet.contains($0) }) else { return false }
        let rest = bytes.dropFirst(22)
        guard let dot = rest.first else { return true }
        let tag = rest.dropFirst()
        return dot == UInt8(ascii: ".") && (1...32).contains(tag.count) && tag.allSatisfy { alphabet.contains($0) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func base64URL(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { output.append(alphabet[Int(chunk >> UInt32(shift) & 63)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest == 1 {
            let chunk = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
        } else if rest == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
