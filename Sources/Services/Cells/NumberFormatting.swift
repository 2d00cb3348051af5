/// Number formats of the product cells, without Foundation's locale machinery.
public enum NumberFormatting {
    /// `50000` → `"50,000.00"`: two decimals, comma thousands separators, rounded half away from zero.
    public static func grouped(_ value: Double, decimals: Int = 2) -> String {
        guard value.isFinite else { return "0.00" }
        let negative = value < 0
        let scale = decimals == 2 ? 100.0 : 1.0
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e17 else { return negative ? "-\(abs(value))" : "\(value)" }
        let cents = Int(scaled)
        let whole = cents / Int(scale)
        var digits = String(whole)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        grouped = digits + grouped
        if decimals == 2 {
            let fraction = cents % 100
            grouped += "." + (fraction < 10 ? "0" : "") + String(fraction)
        }
        return (negative && cents != 0 ? "-" : "") + grouped
    }

    /// `9.99` → `"9.99"`: two decimals, no grouping.
    public static func twoDecimals(_ value: Double) -> String {
        grouped(value).replacingCommas()
    }
}

extension String {
    fileprivate func replacingCommas() -> String {
        String(filter { $0 != "," })
    }
}
