import Testing

@testable import HTTPServer

@Suite("Request id generation")
struct RequestIDGeneratorTests {
    /// A generated id is `<prefix>-<counter>` in decimal, the counter's every digit, at each length.
    @Test(
        arguments: [
            0, 1, 9, 10, 99, 100, 999_999, 1_000_000, 123_456_789_012, UInt64(Int64.max), UInt64.max,
        ] as [UInt64])
    func aGeneratedIDIsThePrefixAndTheCounterInDecimal(counter: UInt64) {
        for prefix in ["", "7", "0badcafe"] {
            #expect(
                RequestIDGenerator.generated(prefix: Array(prefix.utf8), counter: counter) == "\(prefix)-\(counter)")
        }
    }
}
