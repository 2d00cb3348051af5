import JSON
import Services
import Testing
import Upstreams

@Suite("Envelope product format")
struct EnvelopeProductServiceTests {
    @Test func mapsItemsAndPaging() throws {
        let json: JSONValue = [
            "success": true, "message": nil,
            "data": [
                [
                    "ProductId": "p-1001", "ProductName": "Steady Growth 90", "ProductBank": "Harbor Bank",
                    "ProductProfit": "4.15", "SaleStatusCn": "On sale", "ProductTerm": "90", "ProductAmt": "50000",
                ]
            ],
            "page": ["index": 1, "size": 20, "total": 57],
        ]
        let page = try EnvelopeProductService.decode(json, requestedPage: 1)
        #expect(
            page
                == ProductPage(
                    items: [
                        Product(
                            id: "p-1001", title: "Steady Growth 90", subtitle: "Harbor Bank", price: "50,000.00",
                            badge: "On sale", detail: "90 days · 4.15%", imageUrl: nil)
                    ],
                    page: 1, hasMore: true
                ))
        var last = json
        last = ["success": true, "data": [], "page": ["index": 3, "size": 20, "total": 57]]
        #expect(try EnvelopeProductService.decode(last, requestedPage: 3).hasMore == false)
    }

    @Test func businessFailureAndMalformedShapes() {
        #expect(throws: UpstreamError(kind: .business, message: "why")) {
            try EnvelopeProductService.decode(["success": false, "message": "why", "data": nil], requestedPage: 1)
        }
        #expect(throws: UpstreamError.self) { try EnvelopeProductService.decode(["data": []], requestedPage: 1) }
        #expect(throws: UpstreamError.self) {
            try EnvelopeProductService.decode(
                ["success": true, "data": [["ProductName": "x"]], "page": ["total": 1]], requestedPage: 1)
        }
    }

    @Test func priceFormatting() {
        #expect(NumberFormatting.grouped(50000) == "50,000.00")
        #expect(NumberFormatting.grouped(1234567.891) == "1,234,567.89")
        #expect(NumberFormatting.grouped(0.005) == "0.01")
        #expect(NumberFormatting.grouped(999) == "999.00")
        #expect(NumberFormatting.grouped(-1500.5) == "-1,500.50")
        #expect(NumberFormatting.twoDecimals(9.99) == "9.99")
        #expect(NumberFormatting.twoDecimals(1549) == "1549.00")
    }
}
