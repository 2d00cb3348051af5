import JSON
import Testing

@Suite struct JSONValueTests {
    @Test func numbersCompareNumerically() {
        #expect(JSONValue.int(1) == .double(1.0))
        #expect(JSONValue.double(1.0) == .int(1))
        #expect(JSONValue.int(0) == .double(-0.0))
        #expect(JSONValue.int(1) != .double(1.5))
        #expect(JSONValue.int(2) != .int(3))
        #expect(JSONValue.double(0.5) == .double(0.5))
        // 2^63 is not Int.max: no rounding of the integer side.
        #expect(JSONValue.int(.max) != .double(9_223_372_036_854_775_808.0))
        #expect(JSONValue.int(1 << 53 + 1) != .double(Double(1 << 53 + 1)))
        #expect(JSONValue.int(.min) == .double(-9_223_372_036_854_775_808.0))
    }

    @Test func typesDoNotMix() {
        #expect(JSONValue.bool(true) != .int(1))
        #expect(JSONValue.null != .int(0))
        #expect(JSONValue.string("1") != .int(1))
        #expect(JSONValue.array([]) != .object([:]))
        #expect(JSONValue.null == nil)
    }

    @Test func objectsCompareOrderInsensitively() {
        let ab: JSONValue = ["a": 1, "b": [1, 2]]
        let ba: JSONValue = ["b": [1, 2.0], "a": 1.0]
        #expect(ab == ba)
        #expect(ab != ["a": 1, "b": [2, 1]])
        #expect(ab != ["a": 1])
        #expect(ab != ["a": 1, "b": [1, 2], "c": nil])
        #expect(ab != ["a": 1, "c": [1, 2]])
        let arrays: JSONValue = [1, 2]
        #expect(arrays != [2, 1])
    }

    @Test func hashingAgreesWithEquality() {
        let pairs: [(JSONValue, JSONValue)] = [
            (.int(1), .double(1.0)),
            (.int(0), .double(-0.0)),
            (["a": 1, "b": "x", "c": [1]], ["c": [1.0], "b": "x", "a": 1.0]),
            ([["k": 1, "j": 2]], [["j": 2, "k": 1]]),
        ]
        for (lhs, rhs) in pairs {
            #expect(lhs == rhs)
            #expect(lhs.hashValue == rhs.hashValue)
        }
        let set: Set<JSONValue> = [.int(1), .double(1), .double(1.5), ["a": 1, "b": 2], ["b": 2, "a": 1], "1"]
        #expect(set.count == 4)
        #expect(JSONValue.int(1).hashValue != JSONValue.string("1").hashValue)
    }

    @Test func largeObjectsCompareAndHash() {
        var forward = JSONObject()
        var backward = JSONObject()
        for index in 0..<40 { forward["k\(index)"] = .int(index) }
        for index in (0..<40).reversed() { backward["k\(index)"] = .double(Double(index)) }
        #expect(forward == backward)
        #expect(forward.hashValue == backward.hashValue)
        backward["k7"] = 8
        #expect(forward != backward)
    }

    @Test func identity() throws {
        let value: JSONValue = ["a": [1, 2], "o": ["k": "v"]]
        let copy = value
        #expect(value.isIdentical(to: copy))
        #expect(value["a"]!.isIdentical(to: copy["a"]!))
        let reparsed = try JSONParser.parse(value.serializedBytes)
        #expect(reparsed == value)
        #expect(!reparsed.isIdentical(to: value))
        #expect(JSONValue.int(1).isIdentical(to: .double(1)))
        #expect(!JSONValue.int(1).isIdentical(to: .int(2)))
        #expect(!JSONValue.array([]).isIdentical(to: .object([:])))
        var object = value.objectValue!
        let original = object
        #expect(object.isIdentical(to: original))
        object["a"] = 3
        #expect(!object.isIdentical(to: original))
    }

    @Test func literals() {
        let value: JSONValue = ["null": nil, "bool": true, "int": 3, "double": 2.5, "string": "s", "array": [1, "a"]]
        #expect(value["null"] == .some(.null))
        #expect(value["bool"] == .bool(true))
        #expect(value["int"] == .int(3))
        #expect(value["double"] == .double(2.5))
        #expect(value["string"] == .string("s"))
        #expect(value["array"] == .array([.int(1), .string("a")]))
        #expect(value.objectValue?.keys == ["null", "bool", "int", "double", "string", "array"])
        let repeated: JSONValue = ["a": 1, "b": 2, "a": 3]
        #expect(repeated.objectValue?.keys == ["a", "b"])
        #expect(repeated["a"] == 3)
    }

    @Test func accessors() {
        let value: JSONValue = ["list": [10, 2.5, "x", true, nil], "nested": ["k": "v"]]
        #expect(value["list"]?[0]?.intValue == 10)
        #expect(value["list"]?[1]?.doubleValue == 2.5)
        #expect(value["list"]?[1]?.intValue == nil)
        #expect(value["list"]?[0]?.doubleValue == 10)
        #expect(value["list"]?[2]?.stringValue == "x")
        #expect(value["list"]?[3]?.boolValue == true)
        #expect(value["list"]?[4]?.isNull == true)
        #expect(value["list"]?[5] == nil)
        #expect(value["list"]?[-1] == nil)
        #expect(value["list"]?.arrayValue?.count == 5)
        #expect(value["nested"]?.objectValue?["k"] == "v")
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(JSONValue.string("s")["k"] == nil)
        #expect(JSONValue.double(4.0).intValue == 4)
        #expect(JSONValue.double(1e300).intValue == nil)
        #expect(JSONValue.string("4").intValue == nil)
        #expect(JSONValue.int(1).boolValue == nil)
        #expect(JSONValue.int(1).stringValue == nil)
        #expect(JSONValue.int(1).arrayValue == nil)
        #expect(JSONValue.int(1).objectValue == nil)
        #expect(!JSONValue.int(1).isNull)
    }
}
