import JSON
import JSONPatch
import Testing

@Suite struct JSONPatchApplyTests {
    let document: JSONValue = ["a": ["b": [1, 2, 3]], "s": "x", "n": nil]

    private func pointer(_ text: String) throws -> JSONPointer {
        try JSONPointer(parsing: text)
    }

    @Test func addsToArraysAndObjects() throws {
        let result = try JSONPatch.apply(
            [
                .add(path: try pointer("/a/b/0"), value: 0),
                .add(path: try pointer("/a/b/4"), value: 4),
                .add(path: try pointer("/a/b/-"), value: 5),
                .add(path: try pointer("/s"), value: "replaced by add"),
                .add(path: try pointer("/new"), value: ["k": nil]),
            ],
            to: document
        )
        #expect(result == ["a": ["b": [0, 1, 2, 3, 4, 5]], "s": "replaced by add", "n": nil, "new": ["k": nil]])
        #expect(result.objectValue?.keys == ["a", "s", "n", "new"])
    }

    @Test func rootOperations() throws {
        #expect(try JSONPatch.apply([.add(path: .root, value: 1)], to: document) == 1)
        #expect(try JSONPatch.apply([.replace(path: .root, value: [1])], to: document) == [1])
        #expect(try JSONPatch.apply([.test(path: .root, value: document)], to: document) == document)
        #expect(applyError([.remove(path: .root)], to: document) != nil)
    }

    @Test func removeAndReplace() throws {
        let result = try JSONPatch.apply(
            [
                .remove(path: try pointer("/a/b/1")),
                .replace(path: try pointer("/a/b/0"), value: "first"),
                .remove(path: try pointer("/n")),
                .replace(path: try pointer("/s"), value: nil),
            ],
            to: document
        )
        #expect(result == ["a": ["b": ["first", 3]], "s": nil])
    }

    @Test func moveAndCopy() throws {
        let result = try JSONPatch.apply(
            [
                .copy(from: try pointer("/a/b"), path: try pointer("/copy")),
                .move(from: try pointer("/a/b/0"), path: try pointer("/a/b/-")),
                .move(from: try pointer("/s"), path: try pointer("/t")),
                .move(from: try pointer("/t"), path: try pointer("/t")),
                .copy(from: try pointer("/copy/2"), path: try pointer("/copy/0")),
            ],
            to: document
        )
        #expect(result == ["a": ["b": [2, 3, 1]], "n": nil, "copy": [3, 1, 2, 3], "t": "x"])
    }

    @Test func testUsesJSONEquality() throws {
        let value: JSONValue = ["x": 1, "o": ["p": 1, "q": [1.0, "s"]]]
        let passing: [JSONPatchOperation] = [
            .test(path: try pointer("/x"), value: 1.0),
            .test(path: try pointer("/o"), value: ["q": [1, "s"], "p": 1]),
        ]
        #expect(try JSONPatch.apply(passing, to: value) == value)
        #expect(applyError([.test(path: try pointer("/x"), value: "1")], to: value) != nil)
        #expect(applyError([.test(path: try pointer("/o/q"), value: ["s", 1])], to: value) != nil)
        #expect(applyError([.test(path: try pointer("/missing"), value: nil)], to: value) != nil)
    }

    @Test func errors() throws {
        let failing: [(String, JSONPatchOperation)] = [
            ("remove missing member", .remove(path: try pointer("/missing"))),
            ("remove past end", .remove(path: try pointer("/a/b/3"))),
            ("remove with -", .remove(path: try pointer("/a/b/-"))),
            ("replace missing member", .replace(path: try pointer("/missing"), value: 1)),
            ("replace past end", .replace(path: try pointer("/a/b/3"), value: 1)),
            ("add past end", .add(path: try pointer("/a/b/4"), value: 1)),
            ("add with leading zero", .add(path: try pointer("/a/b/01"), value: 1)),
            ("add with negative index", .add(path: try pointer("/a/b/-1"), value: 1)),
            ("add with plus sign", .add(path: try pointer("/a/b/+1"), value: 1)),
            ("add with huge index", .add(path: try pointer("/a/b/99999999999999999999"), value: 1)),
            ("add with non-numeric index", .add(path: try pointer("/a/b/x"), value: 1)),
            ("add under scalar", .add(path: try pointer("/s/x"), value: 1)),
            ("add under missing parent", .add(path: try pointer("/missing/x"), value: 1)),
            ("add under null", .add(path: try pointer("/n/x"), value: 1)),
            ("move missing", .move(from: try pointer("/missing"), path: try pointer("/x"))),
            ("move into own child", .move(from: try pointer("/a"), path: try pointer("/a/b/c"))),
            ("copy missing", .copy(from: try pointer("/a/b/9"), path: try pointer("/x"))),
            ("copy to invalid index", .copy(from: try pointer("/s"), path: try pointer("/a/b/7"))),
            ("test mismatch", .test(path: try pointer("/s"), value: "y")),
            ("traverse scalar", .test(path: try pointer("/s/0"), value: "x")),
        ]
        for (name, operation) in failing {
            #expect(applyError([operation], to: document) != nil, "\(name)")
        }
    }

    @Test func errorsNameTheFailingOperation() throws {
        let error = applyError(
            [.add(path: try pointer("/x"), value: 1), .remove(path: try pointer("/a/missing"))], to: document
        )
        #expect(error?.message == #"operation 1 (remove): no value at "/a/missing""#)
    }

    @Test func applicationIsAtomic() throws {
        let original = document
        let operations: [JSONPatchOperation] = [
            .add(path: try pointer("/a/b/0"), value: 0),
            .remove(path: try pointer("/s")),
            .remove(path: try pointer("/nope")),
        ]
        #expect(applyError(operations, to: document) != nil)
        #expect(document == original)
        #expect(document["s"] == "x")
        #expect(document["a"]?["b"] == [1, 2, 3])
    }

    @Test func sharedStorageIsNotModified() throws {
        let shared: JSONValue = ["list": [["deep": [1, 2]]]]
        let copy = shared
        let result = try JSONPatch.apply([.add(path: try pointer("/list/0/deep/-"), value: 3)], to: shared)
        #expect(result == ["list": [["deep": [1, 2, 3]]]])
        #expect(shared == ["list": [["deep": [1, 2]]]])
        #expect(copy == shared)
    }
}
