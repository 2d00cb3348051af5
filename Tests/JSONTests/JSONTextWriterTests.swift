import JSON
import Testing
import VMHostTesting

@Suite struct JSONTextWriterTests {
    /// Writes `{"a":…,"b":[…],"c":{"d":…},"e":…}` with the writer, from values the tree writes the same way.
    static func written(_ a: JSONValue, _ elements: [JSONValue], _ d: JSONValue, _ e: String?) -> [UInt8] {
        var json = JSONTextWriter()
        json.openObject()
        json.key("a")
        json.value(a)
        json.key("b")
        json.openArray()
        for element in elements {
            switch element {
            case .string(let string): json.string(string)
            case .int(let int): json.int(int)
            case .bool(let bool): json.bool(bool)
            case .null: json.null()
            default: json.value(element)
            }
        }
        json.openArray()
        json.closeArray()
        json.openObject()
        json.closeObject()
        json.closeArray()
        json.key("c")
        json.openObject()
        json.key("d")
        json.value(d)
        json.closeObject()
        json.key("e")
        json.string(e)
        json.closeObject()
        return json.take()
    }

    static func tree(_ a: JSONValue, _ elements: [JSONValue], _ d: JSONValue, _ e: String?) -> JSONValue {
        .object(
            JSONObject([
                ("a", a), ("b", .array(elements + [.array([]), .object(JSONObject())])),
                ("c", .object(JSONObject([("d", d)]))), ("e", e.map { .string($0) } ?? .null),
            ]))
    }

    @Test func writesWhatTheTreeSerialisesToWithEverySeparatorInPlace() throws {
        var random = RandomJSON(seed: 0x7E57)
        for _ in 0..<300 {
            let a = random.value()
            let elements = (0..<Int.random(in: 0...5, using: &random.generator)).map { _ in random.value() }
            let d = random.value()
            let e: String? = Bool.random(using: &random.generator) ? random.string() : nil
            let written = Self.written(a, elements, d, e)
            #expect(written == Self.tree(a, elements, d, e).serializedBytes)
            #expect(try JSONParser.parse(written) == Self.tree(a, elements, d, e))
        }
    }

    @Test func scalarsOptionalsAndEscapesAreTheTreesOwn() {
        var json = JSONTextWriter(appendingTo: Array("x=".utf8))
        json.openArray()
        json.string("quote \" back\\ tab\t line\u{2028} nul\u{0}")
        json.int(-9_223_372_036_854_775_808)
        json.int(nil as Int?)
        json.string(nil as String?)
        json.bool(false)
        json.closeArray()
        let tree: JSONValue = [.string("quote \" back\\ tab\t line\u{2028} nul\u{0}"), .int(Int.min), nil, nil, false]
        #expect(json.bytes == Array("x=".utf8) + tree.serializedBytes)
        #expect(json.take() == Array("x=".utf8) + tree.serializedBytes)
        #expect(json.bytes.isEmpty, "taken")
        json.openObject()
        json.closeObject()
        #expect(json.bytes == Array("{}".utf8), "a writer taken from starts over, without a separator")
    }

    /// A writer with little room grows as it goes, across every kind of piece, and reused keeps what it grew to.
    @Test func aSmallWriterGrowsAndIsReused() {
        let photos: [JSONValue] = (0..<200).map { index in
            ["id": .string("p\(index)"), "title": .string("ünïcødé \"\(index)\""), "n": .int(index * 1_000_003)]
        }
        let tree: JSONValue = ["photos": .array(photos), "done": true, "error": nil]
        var json = JSONTextWriter(capacity: 1)
        for _ in 0..<2 {
            json.openObject()
            json.key("photos")
            json.openArray()
            for index in 0..<200 {
                json.openObject()
                json.key("id")
                json.string("p\(index)")
                json.key("title")
                json.string("ünïcødé \"\(index)\"")
                json.key("n")
                json.int(index * 1_000_003)
                json.closeObject()
            }
            json.closeArray()
            json.key("done")
            json.bool(true)
            json.key("error")
            json.null()
            json.closeObject()
            #expect(json.count == tree.serializedBytes.count)
            #expect(json.withBytes { Array($0) } == tree.serializedBytes)
            json.removeAll()
        }
    }
}
