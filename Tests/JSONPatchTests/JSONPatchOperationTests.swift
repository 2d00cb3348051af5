import JSON
import JSONPatch
import Testing

@Suite struct JSONPatchOperationTests {
    @Test func jsonHasMembersInOrder() throws {
        let operations: [JSONPatchOperation] = [
            .add(path: JSONPointer(tokens: ["a"]), value: 1),
            .remove(path: JSONPointer(tokens: ["a", "0"])),
            .replace(path: JSONPointer(tokens: ["a/b"]), value: nil),
            .move(from: JSONPointer(tokens: ["x"]), path: JSONPointer(tokens: ["y"])),
            .copy(from: JSONPointer(tokens: ["~"]), path: .root),
            .test(path: .root, value: ["k": [true]]),
        ]
        let expected = """
            [{"op":"add","path":"/a","value":1},{"op":"remove","path":"/a/0"},\
            {"op":"replace","path":"/a~1b","value":null},{"op":"move","from":"/x","path":"/y"},\
            {"op":"copy","from":"/~0","path":""},{"op":"test","path":"","value":{"k":[true]}}]
            """
        #expect(serialized(operations) == expected)
        #expect(JSONValue.array(operations.map(\.json)).serializedString == expected)
        #expect(try JSONPatch.parse(try json(expected)) == operations)
        for operation in operations {
            #expect(try JSONPatchOperation(json: operation.json) == operation)
        }
    }

    @Test func accessors() {
        let move = JSONPatchOperation.move(from: JSONPointer(tokens: ["a"]), path: JSONPointer(tokens: ["b"]))
        #expect(move.name == "move")
        #expect(move.from == JSONPointer(tokens: ["a"]))
        #expect(move.path == JSONPointer(tokens: ["b"]))
        #expect(move.value == nil)
        let add = JSONPatchOperation.add(path: .root, value: nil)
        #expect(add.value == .some(.null))
        #expect(add.from == nil)
    }

    @Test func rejectsMalformedOperations() throws {
        let invalid = [
            #"1"#,
            #"{"path": "/a"}"#,
            #"{"op": 1, "path": "/a"}"#,
            #"{"op": "jump", "path": "/a"}"#,
            #"{"op": "add", "value": 1}"#,
            #"{"op": "add", "path": "a", "value": 1}"#,
            #"{"op": "add", "path": "/~2", "value": 1}"#,
            #"{"op": "add", "path": 5, "value": 1}"#,
            #"{"op": "add", "path": "/a"}"#,
            #"{"op": "replace", "path": "/a"}"#,
            #"{"op": "test", "path": "/a"}"#,
            #"{"op": "move", "path": "/a"}"#,
            #"{"op": "copy", "path": "/a", "from": null}"#,
        ]
        for text in invalid {
            let value = try json(text)
            #expect(throws: JSONPatchError.self, "\(text)") { try JSONPatchOperation(json: value) }
        }
        #expect(throws: JSONPatchError.self) { try JSONPatch.parse(["op": "add"]) }
        let unknown = try json(#"[{"op": "remove", "path": "/a"}, {"op": "nope", "path": ""}]"#)
        do {
            _ = try JSONPatch.parse(unknown)
            Issue.record("parsed an unknown op")
        } catch {
            #expect(error.message == #"operation 1: unknown op "nope""#)
        }
    }

    @Test func nullValueIsPresent() throws {
        let operation = try JSONPatchOperation(json: try json(#"{"op": "add", "path": "/a", "value": null}"#))
        #expect(operation == .add(path: JSONPointer(tokens: ["a"]), value: nil))
    }
}
