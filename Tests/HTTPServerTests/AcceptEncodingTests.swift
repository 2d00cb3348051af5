import Testing

@testable import HTTPServer

/// Whether an event stream is gzip-encoded, from the request's `Accept-Encoding` (RFC 9110).
@Suite("Accept-Encoding")
struct AcceptEncodingTests {
    @Test(arguments: [
        ("gzip, deflate, br", true), ("gzip", true), ("x-gzip", true), ("GZIP;q=0.5", true), ("*", true),
        ("deflate, br", false), ("gzip;q=0", false), ("gzip;q=0.0, *", false), ("identity", false), ("", false),
        ("*;q=0", false), ("br, *;q=0.1", true),
    ])
    func acceptEncodingDecidesCompression(header: String, expected: Bool) {
        #expect(acceptsGzip(header) == expected)
    }

    @Test func noAcceptEncodingMeansNoCompression() {
        #expect(!acceptsGzip(nil))
    }
}
