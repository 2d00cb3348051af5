import JSON
import JSONPatch
import Testing

@Suite struct JSONPatchDiffTests {
    private func pointer(_ text: String) throws -> JSONPointer {
        try JSONPointer(parsing: text)
    }

    @Test func equalValuesGiveNoOperations() throws {
        let value: JSONValue = ["a": [1, 2, ["b": nil]], "c": "d"]
        #expect(JSONPatch.diff(from: value, to: value).isEmpty)
        #expect(JSONPatch.diff(from: ["a": 1, "b": 2], to: ["b": 2, "a": 1]).isEmpty)
        #expect(JSONPatch.diff(from: [1, 2], to: [1.0, 2.0]).isEmpty)
        #expect(JSONPatch.diff(from: .null, to: nil).isEmpty)
    }

    @Test func scalarAndTypeChangesReplace() throws {
        #expect(JSONPatch.diff(from: 1, to: "x") == [.replace(path: .root, value: "x")])
        #expect(JSONPatch.diff(from: [1], to: ["a": 1]) == [.replace(path: .root, value: ["a": 1])])
        #expect(JSONPatch.diff(from: ["a": [1]], to: ["a": [2]]) == [.replace(path: try pointer("/a/0"), value: 2)])
        #expect(JSONPatch.diff(from: ["a": true], to: ["a": nil]) == [.replace(path: try pointer("/a"), value: nil)])
        #expect(JSONPatch.diff(from: ["a": 1], to: ["a": 1.5]) == [.replace(path: try pointer("/a"), value: 1.5)])
    }

    @Test func objectMembers() throws {
        let old: JSONValue = ["a": 1, "b": 2, "c": ["d": 1], "x/y": 0]
        let new: JSONValue = ["a": 1, "c": ["d": 2], "e": 3, "x/y": 0, "m~n": []]
        #expect(
            JSONPatch.diff(from: old, to: new) == [
                .remove(path: try pointer("/b")),
                .replace(path: try pointer("/c/d"), value: 2),
                .add(path: try pointer("/e"), value: 3),
                .add(path: try pointer("/m~0n"), value: []),
            ]
        )
        #expect(
            JSONPatch.diff(from: ["a/b": ["~": 1]], to: ["a/b": ["~": 2]])
                == [.replace(path: try pointer("/a~1b/~0"), value: 2)]
        )
    }

    @Test func appendingKItemsGivesExactlyKAdds() throws {
        for count in [0, 1, 2, 5, 20] {
            for added in [1, 2, 3, 10] {
                let items: [JSONValue] = (0..<count).map { ["id": .int($0 % 3), "name": "item"] }
                // Appended items include copies of existing ones, which must not confuse the alignment.
                let extra: [JSONValue] = (0..<added).map { ["id": .int($0 % 3), "name": "item"] }
                let old: JSONValue = ["title": "list", "items": .array(items)]
                let new: JSONValue = ["title": "list", "items": .array(items + extra)]
                let operations = JSONPatch.diff(from: old, to: new)
                let expected = extra.enumerated().map { offset, item in
                    JSONPatchOperation.add(path: JSONPointer(tokens: ["items", String(count + offset)]), value: item)
                }
                #expect(operations == expected, "n=\(count) k=\(added)")
                #expect(try JSONPatch.apply(operations, to: old) == new)
            }
        }
    }

    @Test func arrayEditsInTheMiddle() throws {
        let numbers: JSONValue = [1, 2, 3, 4, 5]
        #expect(JSONPatch.diff(from: numbers, to: [0, 1, 2, 3, 4, 5]) == [.add(path: try pointer("/0"), value: 0)])
        #expect(JSONPatch.diff(from: numbers, to: [1, 2, 4, 5]) == [.remove(path: try pointer("/2"))])
        #expect(JSONPatch.diff(from: numbers, to: [1, 2, 9, 3, 4, 5]) == [.add(path: try pointer("/2"), value: 9)])
        #expect(JSONPatch.diff(from: numbers, to: [1, 2, 9, 4, 5]) == [.replace(path: try pointer("/2"), value: 9)])
        #expect(
            JSONPatch.diff(from: numbers, to: [1, 2]) == [
                .remove(path: try pointer("/4")), .remove(path: try pointer("/3")), .remove(path: try pointer("/2")),
            ]
        )
        #expect(
            JSONPatch.diff(from: numbers, to: [1, 7, 8, 9, 10, 11, 5]) == [
                .replace(path: try pointer("/1"), value: 7), .replace(path: try pointer("/2"), value: 8),
                .replace(path: try pointer("/3"), value: 9), .add(path: try pointer("/4"), value: 10),
                .add(path: try pointer("/5"), value: 11),
            ]
        )
        let nested: JSONValue = [["id": 1, "done": false], ["id": 2, "done": false]]
        #expect(
            JSONPatch.diff(from: nested, to: [["id": 1, "done": true], ["id": 2, "done": false]])
                == [.replace(path: try pointer("/0/done"), value: true)]
        )
    }

    @Test func manyOperationsCollapseIntoReplaceWhenSmaller() throws {
        let old: JSONValue = ["list": .array((0..<20).map { .int($0) })]
        let new: JSONValue = ["list": .array((100..<120).map { .int($0) })]
        #expect(JSONPatch.diff(from: old, to: new) == [.replace(path: try pointer("/list"), value: new["list"]!)])

        var oldObject = JSONObject()
        var newObject = JSONObject()
        for index in 0..<12 {
            oldObject["k\(index)"] = .int(index)
            newObject["k\(index)"] = .string("v\(index)")
        }
        #expect(
            JSONPatch.diff(from: .object(oldObject), to: .object(newObject))
                == [.replace(path: .root, value: .object(newObject))]
        )
    }

    @Test func fewOrSmallOperationsAreKept() throws {
        var list = (0..<20).map { JSONValue.int($0) }
        let old = JSONValue.array(list)
        list[3] = 30
        list[10] = 100
        list[17] = 170
        #expect(JSONPatch.diff(from: old, to: .array(list)).count == 3)

        let long = String(repeating: "x", count: 200)
        let rows: [JSONValue] = (0..<12).map { ["text": .string(long), "n": .int($0)] }
        let changed: [JSONValue] = (0..<12).map { ["text": .string(long), "n": .int($0 + 1)] }
        let operations = JSONPatch.diff(from: .array(rows), to: .array(changed))
        #expect(operations.count == 12)
        #expect(operations.allSatisfy { if case .replace = $0 { $0.path.tokens.last == "n" } else { false } })
    }

    @Test func sharedSubtreesAreSkippedButEditsFound() throws {
        var state = JSONObject()
        state["rows"] = .array((0..<1000).map { ["id": .int($0), "tags": ["x"]] })
        state["header"] = ["title": "t", "count": 1000]
        let old = JSONValue.object(state)
        state["header"] = ["title": "t", "count": 1001]
        let new = JSONValue.object(state)
        #expect(JSONPatch.diff(from: old, to: new) == [.replace(path: try pointer("/header/count"), value: 1001)])
    }

    @Test func largeDocumentsWithSmallChanges() throws {
        let rows: [JSONValue] = (0..<5000).map { ["id": .int($0), "tags": ["a", "b"], "meta": ["x": .int($0 % 7)]] }
        var changed = rows
        changed[2500] = ["id": 2500, "tags": ["a", "b", "c"], "meta": ["x": 1]]
        let old: JSONValue = ["rows": .array(rows)]
        let operations = JSONPatch.diff(from: old, to: ["rows": .array(changed)])
        #expect(operations == [.add(path: try pointer("/rows/2500/tags/2"), value: "c")])
        let appended = JSONPatch.diff(from: old, to: ["rows": .array(rows + [["id": 5000]])])
        #expect(appended == [.add(path: try pointer("/rows/5000"), value: ["id": 5000])])
    }
}
