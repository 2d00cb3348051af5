import JSON
import JSONPatch
import Testing

@Suite struct JSONPointerTests {
    @Test func anOperationWritesItsPointersAsTheirJSONStrings() {
        let tokens = [
            "", "a", "photos", "0", "12", "a/b", "m~n", "quote\"", "back\\slash", "tab\t", "é", "\u{2028}", "\u{7F}",
        ]
        for first in tokens {
            for second in tokens {
                for path in [
                    JSONPointer(tokens: [first]), JSONPointer(tokens: [first, second]), JSONPointer(tokens: []),
                ] {
                    var written: [UInt8] = []
                    JSONPatchOperation.remove(path: path).serialize(into: &written)
                    let expected = JSONValue.object(["op": "remove", "path": .string(path.description)]).serializedBytes
                    #expect(written == expected, "\(path.tokens)")
                }
            }
        }
    }

    @Test func parsesAndEncodes() throws {
        let cases: [(String, [String])] = [
            ("", []),
            ("/", [""]),
            ("/foo", ["foo"]),
            ("/foo/0", ["foo", "0"]),
            ("/a~1b", ["a/b"]),
            ("/m~0n", ["m~n"]),
            ("/~01", ["~1"]),
            ("/~10", ["/0"]),
            ("/~0~1~1~0", ["~//~"]),
            ("//x/", ["", "x", ""]),
            ("/é/😀", ["é", "😀"]),
        ]
        for (text, tokens) in cases {
            let pointer = try JSONPointer(parsing: text)
            #expect(pointer.tokens == tokens, "\(text)")
            #expect(pointer.description == text)
            #expect(JSONPointer(tokens: tokens).description == text)
        }
    }

    @Test func rejectsInvalidPointers() {
        for text in ["foo", "a/b", "/~", "/~2", "/a~", "/~a", "/x/~3y", "~1"] {
            #expect(throws: JSONPatchError.self, "\(text)") { try JSONPointer(parsing: text) }
        }
    }

    @Test func appends() {
        let pointer = JSONPointer.root.appending("a/b").appending(3).appending("~")
        #expect(pointer.tokens == ["a/b", "3", "~"])
        #expect(pointer.description == "/a~1b/3/~0")
        #expect(JSONPointer.root.isRoot)
        #expect(!pointer.isRoot)
        #expect(JSONPointer.root.description == "")
    }

    /// The examples of RFC 6901 section 5.
    @Test func resolvesRFC6901Examples() throws {
        let document = try json(
            #"""
            {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4,
             "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
            """#
        )
        let expectations: [(String, JSONValue)] = [
            ("", document), ("/foo", ["bar", "baz"]), ("/foo/0", "bar"), ("/", 0), ("/a~1b", 1), ("/c%d", 2),
            ("/e^f", 3), ("/g|h", 4), ("/i\\j", 5), ("/k\"l", 6), ("/ ", 7), ("/m~0n", 8),
        ]
        for (text, expected) in expectations {
            #expect(try JSONPointer(parsing: text).resolve(in: document) == expected, "\(text)")
        }
        for missing in ["/bar", "/foo/2", "/foo/-", "/foo/01", "/foo/+1", "/foo/0/x", "/a~1b/0"] {
            #expect(try JSONPointer(parsing: missing).resolve(in: document) == nil, "\(missing)")
        }
    }
}
