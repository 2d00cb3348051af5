import JSON
import Testing
import VMHostTesting

/// The parse error for `text`, or nil when it parses.
private func parseError(_ text: String, maxDepth: Int = JSONParser.defaultMaxDepth) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(text, maxDepth: maxDepth)
        return nil
    } catch {
        return error
    }
}

/// The parse error for `bytes`, or nil when they parse.
private func parseError(bytes: [UInt8]) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

struct InvalidInput: Sendable, CustomTestStringConvertible {
    var bytes: [UInt8]
    var message: String
    var offset: Int

    init(_ text: String, _ message: String, at offset: Int) {
        self.init(Array(text.utf8), message, at: offset)
    }

    init(_ bytes: [UInt8], _ message: String, at offset: Int) {
        self.bytes = bytes
        self.message = message
        self.offset = offset
    }

    var testDescription: String { String(decoding: bytes, as: UTF8.self).debugDescription }
}

@Suite struct JSONParserTests {
    @Test func parsesScalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse(" \t\r\n 42 \n") == .int(42))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
    }

    @Test func parsesIntegersAsInt() throws {
        let cases: [(String, Int)] = [
            ("0", 0), ("-0", 0), ("7", 7), ("-123", -123),
            ("9223372036854775807", .max), ("-9223372036854775808", .min),
        ]
        for (text, expected) in cases {
            let value = try JSONParser.parse(text)
            guard case .int(let parsed) = value else {
                Issue.record("\(text) parsed as \(value), not an int")
                continue
            }
            #expect(parsed == expected)
        }
    }

    @Test func parsesFractionsExponentsAndBigIntegersAsDouble() throws {
        let cases: [(String, Double)] = [
            ("1.5", 1.5), ("-0.25", -0.25), ("1e3", 1000), ("1E+2", 100), ("-1.25e-3", -0.00125), ("2.0", 2),
            ("9223372036854775808", 9_223_372_036_854_775_808.0),
            ("-9223372036854775809", -9_223_372_036_854_775_809.0),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("1e-999", 0), ("0e999", 0),
        ]
        for (text, expected) in cases {
            let value = try JSONParser.parse(text)
            guard case .double(let parsed) = value else {
                Issue.record("\(text) parsed as \(value), not a double")
                continue
            }
            #expect(parsed == expected, "\(text)")
        }
        let negativeZero = try JSONParser.parse("-0.0").doubleValue
        #expect(negativeZero?.sign == .minus)
    }

    @Test func doublesAreCorrectlyRounded() throws {
        let tricky = [
            "0.1", "0.3", "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308", "2.2250738585072011e-308",
            "9007199254740993.0", "1e23", "8.98846567431158e307", "123456789012345678e-5", "0.000001", "1e-7",
            "4.9406564584124654e-324", "3.141592653589793238462643383279", "1e22", "1e-22", "123456.789e3",
            "0.0000000000000000000000000000000000001", "100000000000000000000000000000000.5",
        ]
        for text in tricky {
            #expect(try JSONParser.parse(text).doubleValue == Double(text), "\(text)")
        }
        var generator = SplitMix64(seed: 7)
        for _ in 0..<2000 {
            let mantissa = UInt64.random(in: 0...(UInt64(1) << 60), using: &generator)
            let fractionDigits = Int.random(in: 1...12, using: &generator)
            let exponent = Int.random(in: -320...300, using: &generator)
            var digits = String(mantissa)
            while digits.count <= fractionDigits { digits = "0" + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fractionDigits))
            let text = "\(digits)e\(exponent)"
            let expected = try #require(Double(text))
            if expected.isFinite {
                #expect(try JSONParser.parse(text).doubleValue == expected, "\(text)")
            } else {
                #expect(parseError(text)?.message == "number out of range", "\(text)")
            }
        }
    }

    @Test func parsesContainers() throws {
        let value = try JSONParser.parse(#" { "a" : [1, 2.5, "x", null, true, {}, []], "b": {"c": false} } "#)
        let expected: JSONValue = ["a": [1, 2.5, "x", nil, true, [:], []], "b": ["c": false]]
        #expect(value == expected)
        #expect(value.objectValue?.keys == ["a", "b"])
    }

    @Test func decodesEscapes() throws {
        #expect(try JSONParser.parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try JSONParser.parse(#""a\u00e9b\u20AC""#) == .string("aéb€"))
        #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try JSONParser.parse(#""\uD83D\uDE00!""#) == .string("😀!"))
        #expect(try JSONParser.parse(#""\udbff\udfff""#) == .string("\u{10FFFF}"))
        #expect(try JSONParser.parse(#""prefix \n suffix é""#) == .string("prefix \n suffix é"))
    }

    @Test func acceptsValidMultibyteUTF8() throws {
        for text in ["é", "€", "😀", "\u{10FFFF}", "\u{FFFF}", "\u{800}", "\u{D7FF}", "\u{E000}"] {
            #expect(try JSONParser.parse("\"\(text)\"") == .string(text))
        }
    }

    @Test func duplicateKeysLastWinsAtFirstPosition() throws {
        let value = try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b"])
        #expect(value["a"] == 3)
        #expect(value["b"] == 2)
    }

    @Test func duplicateKeysCanBeRejected() throws {
        func strictError(_ text: String) -> JSONParseError? {
            do {
                _ = try JSONParser.parse(Array(text.utf8), rejectingDuplicateKeys: true)
                return nil
            } catch {
                return error
            }
        }
        #expect(strictError(#"{"a":1,"b":2,"a":3}"#) == JSONParseError(offset: 13, message: "duplicate key 'a'"))
        // Equal after escape decoding is the same key.
        #expect(strictError(#"{"a":1,"\u0061":2}"#) == JSONParseError(offset: 7, message: "duplicate key 'a'"))
        #expect(strictError(#"[{"x":{"k":1,"k":1}}]"#)?.message == "duplicate key 'k'")
        // Past the size where objects index their keys.
        let many = (0..<40).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        #expect(strictError("{\(many),\"k39\":0}")?.message == "duplicate key 'k39'")
        let long = String(repeating: "x", count: 100)
        #expect(strictError(#"{"\#(long)":1,"\#(long)":2}"#)?.message == "duplicate key '\(long.prefix(64))…'")
        // The same key in different objects, and keys differing only in case, are not duplicates.
        #expect(strictError(#"{"a":{"a":1},"b":[{"a":1},{"a":2}],"A":0}"#) == nil)
        #expect(strictError("{\(many)}") == nil)
    }

    @Test(arguments: [
        InvalidInput("", "unexpected end of input", at: 0),
        InvalidInput("   ", "unexpected end of input", at: 3),
        InvalidInput("01", "leading zero in number", at: 0),
        InvalidInput("-01", "leading zero in number", at: 1),
        InvalidInput("[00]", "leading zero in number", at: 1),
        InvalidInput("-", "unexpected end of input", at: 1),
        InvalidInput("-a", "unexpected character 'a'", at: 1),
        InvalidInput("- 1", "unexpected character ' '", at: 1),
        InvalidInput("1.", "unexpected end of input", at: 2),
        InvalidInput("1.e3", "unexpected character 'e'", at: 2),
        InvalidInput("1e", "unexpected end of input", at: 2),
        InvalidInput("1e+", "unexpected end of input", at: 3),
        InvalidInput(".5", "unexpected character '.'", at: 0),
        InvalidInput("+1", "unexpected character '+'", at: 0),
        InvalidInput("1e999", "number out of range", at: 0),
        InvalidInput("[-1.5e400]", "number out of range", at: 1),
        InvalidInput("1 2", "unexpected character '2'", at: 2),
        InvalidInput("{} x", "unexpected character 'x'", at: 3),
        InvalidInput("[]]", "unexpected character ']'", at: 2),
        InvalidInput("nullx", "unexpected character 'x'", at: 4),
        InvalidInput("tru", "unexpected end of input", at: 3),
        InvalidInput("True", "unexpected character 'T'", at: 0),
        InvalidInput("nul1", "unexpected character '1'", at: 3),
        InvalidInput("[1,]", "unexpected character ']'", at: 3),
        InvalidInput("[1 2]", "unexpected character '2'", at: 3),
        InvalidInput("[", "unexpected end of input", at: 1),
        InvalidInput("{", "unexpected end of input", at: 1),
        InvalidInput(#"{"a":1,}"#, "unexpected character '}'", at: 7),
        InvalidInput("{a:1}", "unexpected character 'a'", at: 1),
        InvalidInput(#"{"a" 1}"#, "unexpected character '1'", at: 5),
        InvalidInput(#"{"a":}"#, "unexpected character '}'", at: 5),
        InvalidInput(#""abc"#, "unterminated string", at: 0),
        InvalidInput(#"["a\"#, "unterminated string", at: 4),
        InvalidInput(#""\x""#, "invalid escape sequence", at: 1),
        InvalidInput(#""\u12""#, #"invalid \u escape"#, at: 1),
        InvalidInput(#""\u12G4""#, #"invalid \u escape"#, at: 1),
        InvalidInput(#""\u12"#, #"incomplete \u escape"#, at: 1),
        InvalidInput(#""\uD800""#, #"unpaired surrogate in \u escape"#, at: 1),
        InvalidInput(#""\uDC00""#, #"unpaired surrogate in \u escape"#, at: 1),
        InvalidInput(#""\uD800\u0041""#, #"unpaired surrogate in \u escape"#, at: 1),
        InvalidInput(#""\uD800\uD800""#, #"unpaired surrogate in \u escape"#, at: 1),
        InvalidInput(#""x\uD83Dx""#, #"unpaired surrogate in \u escape"#, at: 2),
        InvalidInput("\"a\nb\"", "unescaped control character 0x0A in string", at: 2),
        InvalidInput("\"\t\"", "unescaped control character 0x09 in string", at: 1),
        InvalidInput("\"\\n\u{1}\"", "unescaped control character 0x01 in string", at: 3),
        InvalidInput("\"\u{0}\"", "unescaped control character 0x00 in string", at: 1),
        InvalidInput([0x22, 0xC0, 0x80, 0x22], "invalid UTF-8 byte 0xC0 in string", at: 1),
        InvalidInput([0x22, 0xC1, 0xBF, 0x22], "invalid UTF-8 byte 0xC1 in string", at: 1),
        InvalidInput([0x22, 0xE0, 0x80, 0x80, 0x22], "invalid UTF-8 byte 0xE0 in string", at: 1),
        InvalidInput([0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], "invalid UTF-8 byte 0xF0 in string", at: 1),
        InvalidInput([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 byte 0xED in string", at: 1),
        InvalidInput([0x22, 0xED, 0xBF, 0xBF, 0x22], "invalid UTF-8 byte 0xED in string", at: 1),
        InvalidInput([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "invalid UTF-8 byte 0xF4 in string", at: 1),
        InvalidInput([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], "invalid UTF-8 byte 0xF5 in string", at: 1),
        InvalidInput([0x22, 0xFF, 0x22], "invalid UTF-8 byte 0xFF in string", at: 1),
        InvalidInput([0x22, 0x80, 0x22], "invalid UTF-8 byte 0x80 in string", at: 1),
        InvalidInput([0x22, 0x61, 0xC3, 0x22], "invalid UTF-8 byte 0xC3 in string", at: 2),
        InvalidInput([0x22, 0xE2, 0x82, 0x22], "invalid UTF-8 byte 0xE2 in string", at: 1),
        InvalidInput([0x22, 0xE2, 0x82], "invalid UTF-8 byte 0xE2 in string", at: 1),
        InvalidInput([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], "invalid UTF-8 byte 0xC3 in string", at: 3),
        InvalidInput([0xEF, 0xBB, 0xBF, 0x31], "unexpected byte 0xEF", at: 0),
        InvalidInput([0x5B, 0x31, 0x5D, 0x00], "unexpected byte 0x00", at: 3),
    ])
    func rejectsInvalidInput(_ input: InvalidInput) {
        let error = parseError(bytes: input.bytes)
        #expect(error == JSONParseError(offset: input.offset, message: input.message))
    }

    @Test func errorDescriptionIncludesOffset() {
        let error = parseError(#"{"a": x}"#)
        #expect(error?.description == "unexpected character 'x' at offset 6")
    }

    @Test func nestingIsLimited() throws {
        let atLimit = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(try JSONParser.parse(atLimit).arrayValue != nil)
        let overLimit = String(repeating: "[", count: 257) + String(repeating: "]", count: 257)
        #expect(parseError(overLimit)?.message == "nesting deeper than 256 levels")
        let objects = String(repeating: #"{"a":"#, count: 257) + "1" + String(repeating: "}", count: 257)
        #expect(parseError(objects)?.message == "nesting deeper than 256 levels")
        #expect(parseError(String(repeating: "[", count: 1_000_000))?.message == "nesting deeper than 256 levels")
        #expect(parseError("[[[1]]]", maxDepth: 2)?.offset == 2)
        #expect(parseError("[[[1]]]", maxDepth: 3) == nil)
        #expect(parseError("1", maxDepth: 0) == nil)
    }

    @Test func parsesAnyCollectionOfBytes() throws {
        let text = #"{"k":[1,"é"]}"#
        let expected: JSONValue = ["k": [1, "é"]]
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
        #expect(try JSONParser.parse(text.utf8) == expected)
        #expect(try JSONParser.parse(Array(("xx" + text).utf8).dropFirst(2)) == expected)
        // Not contiguous: parsed through a single copy.
        #expect(try JSONParser.parse(Array(text.utf8).lazy.map { $0 }) == expected)
        let bytes = Array(text.utf8)
        let fromPointer = try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            try JSONParser.parse(buffer)
        }
        #expect(fromPointer == expected)
    }
}
