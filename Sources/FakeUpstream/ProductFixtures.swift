import JSON

/// The deterministic product catalogue of the fake `envelope` API: 57 products.
enum ProductFixtures {
    static let count = 57

    private static let banks = ["Harbor Bank", "Granite Trust", "Northwind Savings", "Cedar Mutual", "Bluewater Bank"]
    private static let names = ["Steady Growth", "Harvest Plus", "Evergreen", "Silver Line", "Compass Yield", "Anchor"]
    private static let statuses = ["On sale", "Sold out", "Coming soon"]
    private static let terms = [30, 60, 90, 180, 365]
    private static let amounts = ["1000", "5000", "10000", "50000", "100000", "250000.5"]

    /// Product `index` (0-based) in the upstream's own field names.
    static func product(_ index: Int) -> JSONValue {
        let term = terms[index % terms.count]
        let profit = 3.0 + Double((index * 37) % 150) / 100.0
        return [
            "ProductId": .string("p-\(1001 + index)"),
            "ProductName": .string("\(names[index % names.count]) \(term)"),
            "ProductBank": .string(banks[(index / 2) % banks.count]),
            "ProductProfit": .string(twoDecimals(profit)),
            "SaleStatusCn": .string(statuses[index % 7 == 3 ? 1 : (index % 11 == 5 ? 2 : 0)]),
            "ProductTerm": .string(String(term)),
            "ProductAmt": .string(amounts[index % amounts.count]),
        ]
    }

    /// The envelope answer for one page.
    static func page(index: Int, size: Int) -> JSONValue {
        let start = (index - 1) * size
        let items = start < count ? (start..<min(start + size, count)).map(product) : []
        return [
            "success": true,
            "message": .null,
            "data": .array(items),
            "page": ["index": .int(index), "size": .int(size), "total": .int(count)],
        ]
    }

    private static func twoDecimals(_ value: Double) -> String {
        let cents = Int((value * 100).rounded())
        let fraction = cents % 100
        return "\(cents / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
