import JSON
import JSONPatch
import Testing

/// One example from RFC 6902 appendix A: a document, a patch, and the result (nil when the patch must fail).
struct AppendixExample: Sendable, CustomTestStringConvertible {
    var section: String
    var document: String
    var patch: String
    var result: String?

    var testDescription: String { "A.\(section)" }
}

@Suite struct RFC6902AppendixTests {
    static let examples = [
        AppendixExample(
            section: "1 adding an object member",
            document: #"{"foo": "bar"}"#,
            patch: #"[{"op": "add", "path": "/baz", "value": "qux"}]"#,
            result: #"{"baz": "qux", "foo": "bar"}"#
        ),
        AppendixExample(
            section: "2 adding an array element",
            document: #"{"foo": ["bar", "baz"]}"#,
            patch: #"[{"op": "add", "path": "/foo/1", "value": "qux"}]"#,
            result: #"{"foo": ["bar", "qux", "baz"]}"#
        ),
        AppendixExample(
            section: "3 removing an object member",
            document: #"{"baz": "qux", "foo": "bar"}"#,
            patch: #"[{"op": "remove", "path": "/baz"}]"#,
            result: #"{"foo": "bar"}"#
        ),
        AppendixExample(
            section: "4 removing an array element",
            document: #"{"foo": ["bar", "qux", "baz"]}"#,
            patch: #"[{"op": "remove", "path": "/foo/1"}]"#,
            result: #"{"foo": ["bar", "baz"]}"#
        ),
        AppendixExample(
            section: "5 replacing a value",
            document: #"{"baz": "qux", "foo": "bar"}"#,
            patch: #"[{"op": "replace", "path": "/baz", "value": "boo"}]"#,
            result: #"{"baz": "boo", "foo": "bar"}"#
        ),
        AppendixExample(
            section: "6 moving a value",
            document: #"{"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}"#,
            patch: #"[{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]"#,
            result: #"{"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}"#
        ),
        AppendixExample(
            section: "7 moving an array element",
            document: #"{"foo": ["all", "grass", "cows", "eat"]}"#,
            patch: #"[{"op": "move", "from": "/foo/1", "path": "/foo/3"}]"#,
            result: #"{"foo": ["all", "cows", "eat", "grass"]}"#
        ),
        AppendixExample(
            section: "8 testing a value: success",
            document: #"{"baz": "qux", "foo": ["a", 2, "c"]}"#,
            patch: #"[{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}]"#,
            result: #"{"baz": "qux", "foo": ["a", 2, "c"]}"#
        ),
        AppendixExample(
            section: "9 testing a value: error",
            document: #"{"baz": "qux"}"#,
            patch: #"[{"op": "test", "path": "/baz", "value": "bar"}]"#,
            result: nil
        ),
        AppendixExample(
            section: "10 adding a nested member object",
            document: #"{"foo": "bar"}"#,
            patch: #"[{"op": "add", "path": "/child", "value": {"grandchild": {}}}]"#,
            result: #"{"foo": "bar", "child": {"grandchild": {}}}"#
        ),
        AppendixExample(
            section: "11 ignoring unrecognized elements",
            document: #"{"foo": "bar"}"#,
            patch: #"[{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}]"#,
            result: #"{"foo": "bar", "baz": "qux"}"#
        ),
        AppendixExample(
            section: "12 adding to a nonexistent target",
            document: #"{"foo": "bar"}"#,
            patch: #"[{"op": "add", "path": "/baz/bat", "value": "qux"}]"#,
            result: nil
        ),
        AppendixExample(
            section: "14 ~ escape ordering",
            document: #"{"/": 9, "~1": 10}"#,
            patch: #"[{"op": "test", "path": "/~01", "value": 10}]"#,
            result: #"{"/": 9, "~1": 10}"#
        ),
        AppendixExample(
            section: "15 comparing strings and numbers",
            document: #"{"/": 9, "~1": 10}"#,
            patch: #"[{"op": "test", "path": "/~01", "value": "10"}]"#,
            result: nil
        ),
        AppendixExample(
            section: "16 adding an array value",
            document: #"{"foo": ["bar"]}"#,
            patch: #"[{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]"#,
            result: #"{"foo": ["bar", ["abc", "def"]]}"#
        ),
    ]

    @Test(arguments: examples)
    func example(_ example: AppendixExample) throws {
        let document = try json(example.document)
        let operations = try patch(example.patch)
        if let result = example.result {
            let patched = try JSONPatch.apply(operations, to: document)
            #expect(patched == (try json(result)))
        } else {
            #expect(applyError(operations, to: document) != nil)
        }
    }

    /// A.13: an operation object with two `op` members is invalid. Our JSON parser keeps the last one, so the
    /// patch reads as a removal of a member that does not exist, and still fails.
    @Test func invalidPatchDocumentFails() throws {
        let operations = try patch(#"[{"op": "add", "path": "/baz", "value": "qux", "op": "remove"}]"#)
        #expect(operations == [.remove(path: JSONPointer(tokens: ["baz"]))])
        #expect(applyError(operations, to: try json(#"{"foo": "bar"}"#)) != nil)
    }
}
