/// Integers as decimal text: the one place their digits are made. ``ByteWriter``, the JSON writer and Redis
/// commands all write through it.
public enum DecimalDigits {
    /// The most bytes an `Int` takes in decimal (`-9223372036854775808`).
    public static let maximumCount = 20

    /// The byte count of `value` in decimal: its digits and sign (for a length written before the text).
    @inlinable @inline(__always)
    public static func count(of value: Int) -> Int {
        var count = value < 0 ? 2 : 1
        var rest = value.magnitude / 10
        while rest != 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    /// Writes `value` in decimal so that it ends right before `end`, from its last digit back, and returns
    /// where it starts: ``count(of:)`` bytes before `end`, which the caller has room for.
    @inlinable @inline(__always)
    public static func fill(_ value: Int, endingAt end: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var start = end
        var magnitude = value.magnitude
        repeat {
            start -= 1
            start.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        if value < 0 {
            start -= 1
            start.pointee = UInt8(ascii: "-")
        }
        return start
    }
}
