import EventStreams
import Testing

@Suite("Multiplexed event ids")
struct MultiplexedEventIDTests {
    @Test func formatAndParseRoundTripInOrder() {
        let versions = [(name: "search", version: 4), (name: "products", version: 3), (name: "photo", version: 1)]
        let id = MultiplexedEventID.format(versions)
        #expect(id == "search:4,products:3,photo:1")
        #expect(MultiplexedEventID.parse(id) == ["search": 4, "products": 3, "photo": 1])
    }

    /// A `Last-Event-ID` comes from the client: spaces and tabs around parts are read through, malformed parts
    /// are skipped (the view model then gets its snapshot), never a crash.
    @Test func malformedPartsAreIgnored() {
        #expect(MultiplexedEventID.parse(" search : 4 ,\tproducts:3\t") == ["search": 4, "products": 3])
        #expect(MultiplexedEventID.parse("search:x,products,photo:2:3,:5,,") == [:])
        #expect(MultiplexedEventID.parse("") == [:])
        #expect(MultiplexedEventID.parse("search:99999999999999999999999") == [:])
    }
}
