import Bytes
import Testing

@Suite("Bytes: comparison")
struct SameBytesTests {
    /// Equal texts of every length around the eight-byte steps compare equal; a difference at any position, or
    /// one more byte, does not.
    @Test func aDifferenceAnywhereIsFound() {
        for count in 0...25 {
            let text = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 5) }
            text.withUnsafeBytes { original in
                let copy = Array(text)
                copy.withUnsafeBytes { #expect(original.hasSameBytes(as: $0), "length \(count)") }
                for position in 0..<count {
                    var changed = text
                    changed[position] ^= 0x01
                    changed.withUnsafeBytes { #expect(!original.hasSameBytes(as: $0), "\(count), at \(position)") }
                }
                (text + [0]).withUnsafeBytes { #expect(!original.hasSameBytes(as: $0), "longer, \(count)") }
            }
        }
    }
}
