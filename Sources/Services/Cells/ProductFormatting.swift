/// The display rules of product cells (API.md "Product list"): how the numbers and words of each product API
/// become the strings of a ``Product``. The live services read the JSON; the wording lives here, next to the
/// photo cells' (``PhotoFormatting``).
public enum ProductFormatting {
    // MARK: dummyjson

    /// `"$"` and two decimals: `9.99` → `"$9.99"`; "" without a price.
    public static func dollarPrice(_ price: Double?) -> String {
        price.map { "$" + NumberFormatting.twoDecimals($0) } ?? ""
    }

    /// `"In stock"` when `stock` > 0, else `"Out of stock"` (also without a stock count).
    public static func stockBadge(stock: Int?) -> String {
        (stock ?? 0) > 0 ? "In stock" : "Out of stock"
    }

    /// `"★ {rating} · {discount rounded}% off"`; `?` for a part that is unknown.
    /// - Parameters:
    ///   - rating: the rating as the upstream wrote it (`"4.94"`, `"5"`).
    ///   - discountPercent: the discount in percent, rounded half away from zero.
    public static func ratingDetail(rating: String?, discountPercent: Double?) -> String {
        "★ \(rating ?? "?") · \(discountPercent.flatMap(roundedPercent) ?? "?")% off"
    }

    /// `7.17` → `"7"`, `12.5` → `"13"` (half away from zero); nil when it is no integer any more.
    public static func roundedPercent(_ value: Double) -> String? {
        let rounded = value.rounded(.toNearestOrAwayFromZero)
        guard let integral = Int(exactly: rounded) else { return nil }
        return String(integral)
    }

    // MARK: envelope

    /// Two decimals with thousands separators: `50000` → `"50,000.00"`; "" without an amount.
    public static func groupedAmount(_ amount: Double?) -> String {
        amount.map { NumberFormatting.grouped($0) } ?? ""
    }

    /// `"{term} days · {profit}%"`; `?` for a part that is unknown.
    public static func termDetail(term: String?, profit: String?) -> String {
        "\(term ?? "?") days · \(profit ?? "?")%"
    }
}
