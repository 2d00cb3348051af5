/// The significant digits and decimal exponent of a number being parsed, for the exact fast conversion
/// (Clinger's fast path): a mantissa below 2^53 scaled by an exact power of ten is correctly rounded.
struct DecimalMantissa {
    /// The significant digits as an integer (leading zeros skipped).
    var digits: UInt64 = 0
    /// How many digits `digits` holds.
    var significantDigits = 0
    /// Set when digits beyond the 19 that fit were dropped; the slow path handles those.
    var truncated = false
    /// The power of ten applied to `digits`.
    var exponent = 0

    /// Adds a digit before the decimal point.
    mutating func appendIntegerDigit(_ digit: UInt64) {
        if !append(digit) { exponent += 1 }
    }

    /// Adds a digit after the decimal point.
    mutating func appendFractionDigit(_ digit: UInt64) {
        if append(digit) { exponent -= 1 }
    }

    /// Appends a digit; false when it had to be dropped.
    private mutating func append(_ digit: UInt64) -> Bool {
        if digits == 0 && digit == 0 { return true }
        guard significantDigits < 19 else {
            truncated = true
            return false
        }
        digits = digits * 10 + digit
        significantDigits += 1
        return true
    }

    /// The value when it can be computed exactly with one multiplication or division, otherwise nil.
    var exactValue: Double? {
        if digits == 0 { return 0 }
        guard !truncated, digits <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let significand = Double(digits)
        return exponent < 0 ? significand / exactPowersOfTen[-exponent] : significand * exactPowersOfTen[exponent]
    }
}

/// Exact powers of ten representable as `Double`, for the fast number path.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]
