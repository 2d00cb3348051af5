import JSON
import Services
import Testing
import Upstreams

@Suite("DummyJSON product format")
struct DummyJSONProductServiceTests {
    static let mascara: JSONValue = [
        "id": 1, "title": "Essence Mascara Lash Princess", "category": "beauty", "price": 9.99,
        "discountPercentage": 7.17, "rating": 4.94, "stock": 5, "brand": "Essence",
        "thumbnail": "https://cdn.dummyjson.com/products/images/beauty/essence-mascara/thumbnail.png",
    ]

    static func response(_ products: [JSONValue], total: Int = 194, skip: Int = 0) -> JSONValue {
        ["products": .array(products), "total": .int(total), "skip": .int(skip), "limit": .int(products.count)]
    }

    static func decodeOne(_ product: JSONValue) throws -> Product {
        let page = try DummyJSONProductService.decode(response([product]), requestedPage: 1)
        return try #require(page.items.first)
    }

    @Test func mapsTheDocumentedExample() throws {
        let page = try DummyJSONProductService.decode(Self.response([Self.mascara]), requestedPage: 1)
        #expect(
            page
                == ProductPage(
                    items: [
                        Product(
                            id: "1", title: "Essence Mascara Lash Princess", subtitle: "Essence", price: "$9.99",
                            badge: "In stock",
                            detail: "★ 4.94 · 7% off",
                            imageUrl: "https://cdn.dummyjson.com/products/images/beauty/essence-mascara/thumbnail.png"
                        )
                    ],
                    page: 1, hasMore: true
                ))
    }

    @Test func subtitleFallsBackToTheCategoryWithoutABrand() throws {
        var product = try #require(Self.mascara.objectValue)
        product["brand"] = nil
        #expect(try Self.decodeOne(.object(product)).subtitle == "beauty")
        product["brand"] = ""
        #expect(try Self.decodeOne(.object(product)).subtitle == "beauty")
        product["brand"] = "Apex"
        #expect(try Self.decodeOne(.object(product)).subtitle == "Apex")
    }

    @Test func stockDecidesTheBadge() throws {
        var product = try #require(Self.mascara.objectValue)
        product["stock"] = 0
        #expect(try Self.decodeOne(.object(product)).badge == "Out of stock")
        product["stock"] = nil
        #expect(try Self.decodeOne(.object(product)).badge == "Out of stock")
        product["stock"] = 1
        #expect(try Self.decodeOne(.object(product)).badge == "In stock")
    }

    @Test(arguments: [
        (JSONValue.double(4.94), JSONValue.double(7.17), "★ 4.94 · 7% off"),
        (.int(5), .double(12.5), "★ 5 · 13% off"),
        (.double(4.0), .double(0.4), "★ 4 · 0% off"),
        (.double(3.456), .int(20), "★ 3.456 · 20% off"),
        (.string("4.5"), .string("9.51"), "★ 4.5 · 10% off"),
    ])
    func detailFormatsRatingAsGivenAndRoundsTheDiscount(rating: JSONValue, discount: JSONValue, detail: String) throws {
        var product = try #require(Self.mascara.objectValue)
        product["rating"] = rating
        product["discountPercentage"] = discount
        #expect(try Self.decodeOne(.object(product)).detail == detail)
    }

    @Test func priceHasADollarSignAndTwoDecimals() throws {
        var product = try #require(Self.mascara.objectValue)
        product["price"] = 1549
        #expect(try Self.decodeOne(.object(product)).price == "$1549.00")
        product["price"] = 0.5
        #expect(try Self.decodeOne(.object(product)).price == "$0.50")
    }

    @Test func hasMoreUntilTheEndOfTheList() throws {
        let full = Array(repeating: Self.mascara, count: 20)
        let first = try DummyJSONProductService.decode(Self.response(full, skip: 0), requestedPage: 1)
        #expect(first.hasMore)
        #expect(first.items.count == 20)
        let middle = try DummyJSONProductService.decode(Self.response(full, skip: 160), requestedPage: 9)
        #expect(middle.hasMore)
        #expect(middle.page == 9)
        let last = Array(repeating: Self.mascara, count: 14)
        let end = try DummyJSONProductService.decode(Self.response(last, skip: 180), requestedPage: 10)
        #expect(end.hasMore == false)
        #expect(end.page == 10)
        let beyond = try DummyJSONProductService.decode(Self.response([], skip: 194), requestedPage: 11)
        #expect(beyond.hasMore == false)
        #expect(beyond.items.isEmpty)
    }

    @Test func malformedShapesAreDecodingErrors() {
        let cases: [JSONValue] = [
            ["total": 194, "skip": 0],
            ["products": nil, "message": "Service unavailable"],
            ["products": [], "skip": 0],
            ["products": [], "total": 194],
            ["products": [["id": 1]], "total": 194, "skip": 0],
            ["products": [["title": "No id"]], "total": 194, "skip": 0],
            "products",
        ]
        for json in cases {
            let error = #expect(throws: UpstreamError.self) {
                try DummyJSONProductService.decode(json, requestedPage: 1)
            }
            #expect(error?.kind == .decoding, "\(json)")
        }
    }
}
