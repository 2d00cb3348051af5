import JSON
import Testing

@Suite struct JSONSerializationTests {
    @Test func anObjectWithAFirstMemberIsTheTextOfTheObjectBuiltThatWay() {
        var random = RandomJSON(seed: 12)
        for round in 0..<300 {
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &random.generator) {
                object[random.string()] = random.value(depth: 1)
            }
            // Sometimes the key is there already (it is replaced and moves first), sometimes not.
            let key = round % 3 == 0 ? (object.first?.key ?? "version") : "version"
            let value = random.value(depth: 2)
            var built = JSONObject()
            built[key] = value
            for member in object where member.key != key { built[member.key] = member.value }
            var bytes: [UInt8] = []
            object.serialize(into: &bytes, first: (key, value))
            #expect(bytes == JSONValue.object(built).serializedBytes, "round \(round)")
        }
    }

    @Test func serializesScalars() {
        #expect(JSONValue.null.serializedString == "null")
        #expect(JSONValue.bool(true).serializedString == "true")
        #expect(JSONValue.bool(false).serializedString == "false")
        #expect(JSONValue.int(0).serializedString == "0")
        #expect(JSONValue.int(7).serializedString == "7")
        #expect(JSONValue.int(-42).serializedString == "-42")
        #expect(JSONValue.int(1_234_567_890).serializedString == "1234567890")
        #expect(JSONValue.int(.max).serializedString == "9223372036854775807")
        #expect(JSONValue.int(.min).serializedString == "-9223372036854775808")
    }

    @Test func serializesDoubles() throws {
        #expect(JSONValue.double(5).serializedString == "5.0")
        #expect(JSONValue.double(0.1).serializedString == "0.1")
        #expect(JSONValue.double(-2.5).serializedString == "-2.5")
        #expect(JSONValue.double(-0.0).serializedString == "-0.0")
        #expect(JSONValue.double(1e20).serializedString == "1e+20")
        #expect(JSONValue.double(1e-5).serializedString == "1e-05")
        #expect(JSONValue.double(.infinity).serializedString == "null")
        #expect(JSONValue.double(-.infinity).serializedString == "null")
        #expect(JSONValue.double(.nan).serializedString == "null")
        for double in [Double.leastNonzeroMagnitude, 1.7976931348623157e308, 0.1 + 0.2, 123_456.789, -1e-300] {
            let text = JSONValue.double(double).serializedString
            #expect(try JSONParser.parse(text).doubleValue == double, "\(text)")
        }
    }

    @Test func escapesStrings() {
        #expect(JSONValue.string("plain").serializedString == #""plain""#)
        #expect(JSONValue.string("").serializedString == #""""#)
        #expect(JSONValue.string("a\"b\\c/d").serializedString == #""a\"b\\c/d""#)
        #expect(JSONValue.string("\n\r\t\u{8}\u{C}").serializedString == #""\n\r\t\b\f""#)
        #expect(JSONValue.string("\u{0}\u{1}\u{1F}").serializedString == #""\u0000\u0001\u001f""#)
        #expect(JSONValue.string("x\u{2028}y\u{2029}z").serializedString == #""x\u2028y\u2029z""#)
        let unescaped = "\u{7F}é€😀\u{2027}\u{202A}"
        #expect(JSONValue.string(unescaped).serializedString == "\"\(unescaped)\"")
        #expect(JSONValue.string("ends with \n").serializedString == #""ends with \n""#)
        // A trailing lead byte of U+2028's encoding must not be read past the end.
        #expect(JSONValue.string("\u{2000}").serializedBytes == [0x22, 0xE2, 0x80, 0x80, 0x22])
    }

    @Test func escapedStringsParseBack() throws {
        var all = ""
        for scalar in 0..<0x80 { all.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        all += "\u{2028}\u{2029}é😀"
        let text = JSONValue.string(all).serializedString
        #expect(try JSONParser.parse(text) == .string(all))
        for byte in text.utf8 where byte < 0x20 {
            Issue.record("raw control byte \(byte) in output")
        }
    }

    @Test func serializesContainersCompactlyInOrder() {
        let value: JSONValue = ["z": 1, "a": [true, nil, "s", 1.5, [:], []], "m": ["k": "v"]]
        #expect(value.serializedString == #"{"z":1,"a":[true,null,"s",1.5,{},[]],"m":{"k":"v"}}"#)
        #expect(JSONValue.array([]).serializedString == "[]")
        #expect(JSONValue.object(JSONObject()).serializedString == "{}")
        #expect(JSONValue.object(["a\nb": 1]).serializedString == #"{"a\nb":1}"#)
    }

    @Test func serializeAppendsToBuffer() {
        var buffer = Array("prefix:".utf8)
        JSONValue.array([1, 2]).serialize(into: &buffer)
        let object: JSONObject = ["k": "v"]
        object.serialize(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"prefix:[1,2]{"k":"v"}"#)
        #expect(JSONValue.array([1, "x"]).serializedBytes == Array(#"[1,"x"]"#.utf8))
        #expect(JSONValue.string("é").description == #""é""#)
    }

    @Test func randomDocumentsRoundTrip() throws {
        var random = RandomJSON(seed: 42)
        for _ in 0..<1000 {
            let value = random.value()
            let bytes = value.serializedBytes
            let parsed = try JSONParser.parse(bytes)
            #expect(parsed == value)
            #expect(parsed.serializedBytes == bytes)
        }
    }

    @Test func nonNativeStringsSerialize() {
        let substringBased = String("xx\u{2028}\"yy".dropFirst())
        #expect(JSONValue.string(substringBased).serializedString == #""x\u2028\"yy""#)
    }
}
