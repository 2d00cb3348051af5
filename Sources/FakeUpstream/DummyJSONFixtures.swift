import JSON

/// The deterministic catalogue of the fake DummyJSON API: 194 products (ids 1...194) in DummyJSON's shape.
///
/// Some products are out of stock (`stock: 0`) and some have no `brand`, as in the real catalogue.
enum DummyJSONFixtures {
    static let count = 194
    static let defaultLimit = 30

    private static let categories = [
        "beauty", "fragrances", "furniture", "groceries", "home-decoration", "kitchen-accessories", "laptops",
        "mens-shirts", "smartphones", "sports-accessories", "sunglasses", "tablets",
    ]
    private static let brands = [
        "Essence", "Glamour Beauty", "Velvet Touch", "Nordic Home", "Fresh Fields", "Apex", "Lumen", "Orbit",
        "Northpeak", "Riverstone",
    ]
    private static let adjectives = [
        "Classic", "Deluxe", "Compact", "Organic", "Wireless", "Vintage", "Ultra", "Everyday", "Premium", "Mini",
    ]
    private static let nouns = [
        "Mascara", "Perfume", "Armchair", "Honey Jar", "Table Lamp", "Chef Knife", "Notebook", "Linen Shirt",
        "Phone", "Tennis Racket", "Aviators", "Tablet",
    ]

    /// Product `id` (1-based) as DummyJSON sends it.
    static func product(id: Int) -> JSONValue {
        if id == 1 {
            // The first product of the real catalogue, as in the API documentation.
            return item(
                id: 1, title: "Essence Mascara Lash Princess", category: "beauty", price: 9.99, discount: 7.17,
                rating: 4.94, stock: 5, brand: "Essence"
            )
        }
        let categoryIndex = (id * 7) % categories.count
        let title = "\(adjectives[(id * 3) % adjectives.count]) \(nouns[categoryIndex]) \(id)"
        let price = Double((id * 7919) % 2000 + 1) - 0.01
        let discount = Double((id * 131) % 2000) / 100
        let rating = Double((id * 53) % 300 + 200) / 100
        let stock = id % 9 == 0 ? 0 : (id * 17) % 150 + 1
        let brand: String? = id % 5 == 0 ? nil : brands[(id * 11) % brands.count]
        return item(
            id: id, title: title, category: categories[categoryIndex], price: price, discount: discount,
            rating: rating, stock: stock, brand: brand
        )
    }

    /// The answer for `limit` (0: all) and `skip`; `limit` in the answer is the number of products returned,
    /// as DummyJSON does.
    static func page(limit requestedLimit: Int, skip requestedSkip: Int) -> JSONValue {
        let skip = min(max(requestedSkip, 0), count)
        let limit = requestedLimit <= 0 ? count : requestedLimit
        let end = min(skip + limit, count)
        let products = (skip..<end).map { product(id: $0 + 1) }
        return ["products": .array(products), "total": .int(count), "skip": .int(skip), "limit": .int(products.count)]
    }

    private static func item(
        id: Int, title: String, category: String, price: Double, discount: Double, rating: Double, stock: Int,
        brand: String?
    ) -> JSONValue {
        var object: JSONObject = [
            "id": .int(id), "title": .string(title), "category": .string(category), "price": .double(price),
            "discountPercentage": .double(discount), "rating": .double(rating), "stock": .int(stock),
        ]
        if let brand { object["brand"] = .string(brand) }
        let image = "https://cdn.dummyjson.com/products/images/\(category)/\(slug(title))"
        object["thumbnail"] = .string("\(image)/thumbnail.png")
        return .object(object)
    }

    /// `"Classic Mascara 2"` → `"classic-mascara-2"`.
    private static func slug(_ title: String) -> String {
        String(title.lowercased().map { $0 == " " ? "-" : $0 })
    }
}
