import JSON

/// RFC 6902 JSON Patch: computing, applying, parsing and serialising patches.
public enum JSONPatch {
    /// The operations (only `add`, `remove` and `replace`) that turn `old` into `new` when applied in order.
    ///
    /// Equal values give no operations. Appending `k` elements to an array gives exactly `k` `add` operations.
    /// Where many operations (more than 8, not all additions) for one container would serialise larger than
    /// replacing it, a single `replace` of the container is produced instead; a change of type replaces the value
    /// (the root path `""` included).
    public static func diff(from old: JSONValue, to new: JSONValue) -> [JSONPatchOperation] {
        var differ = JSONDiffer()
        differ.diff(old, new)
        return differ.operations
    }

    /// The operations turning one object into another, given only the members that may differ: each with its
    /// key, old value and new value, in the objects' member order. `whole` builds the new object, and is called
    /// only when the size guard of ``diff(from:to:)`` needs it.
    ///
    /// Equal to `diff(from: old, to: new)` when both objects have the same keys in the same order and every
    /// member not listed is equal in both, without building either object: a view model's state diffs only the
    /// parts that a command changed.
    public static func diff(
        changedMembers: [(key: String, old: JSONValue, new: JSONValue)], whole: () -> JSONValue
    ) -> [JSONPatchOperation] {
        var differ = JSONDiffer()
        differ.diffRootMembers(changedMembers, whole: whole)
        return differ.operations
    }

    /// Applies `patch` to `document` in order and returns the result; on error nothing is returned, so the
    /// application is atomic.
    public static func apply(
        _ patch: [JSONPatchOperation], to document: JSONValue
    ) throws(JSONPatchError) -> JSONValue {
        var result = document
        for (index, operation) in patch.enumerated() {
            do {
                try apply(operation, to: &result)
            } catch {
                throw JSONPatchError("operation \(index) (\(operation.name)): \(error.message)")
            }
        }
        return result
    }

    /// Parses a patch document: an array of operation objects.
    public static func parse(_ json: JSONValue) throws(JSONPatchError) -> [JSONPatchOperation] {
        guard case .array(let elements) = json else { throw JSONPatchError("a JSON Patch must be an array") }
        var operations: [JSONPatchOperation] = []
        operations.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                operations.append(try JSONPatchOperation(json: element))
            } catch {
                throw JSONPatchError("operation \(index): \(error.message)")
            }
        }
        return operations
    }

    /// Appends `patch` as a compact JSON array.
    public static func serialize(_ patch: [JSONPatchOperation], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        for (index, operation) in patch.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            operation.serialize(into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    private static func apply(_ operation: JSONPatchOperation, to document: inout JSONValue) throws(JSONPatchError) {
        switch operation {
        case .add(let path, let value):
            try JSONEditor.add(value, at: path, in: &document)
        case .remove(let path):
            _ = try JSONEditor.remove(at: path, in: &document)
        case .replace(let path, let value):
            try JSONEditor.replace(at: path, with: value, in: &document)
        case .move(let from, let path):
            if from == path {
                _ = try JSONEditor.value(at: from, in: document)
                return
            }
            if path.tokens.count > from.tokens.count && path.tokens.starts(with: from.tokens) {
                throw JSONPatchError("cannot move \"\(from)\" into its own child \"\(path)\"")
            }
            let value = try JSONEditor.remove(at: from, in: &document)
            try JSONEditor.add(value, at: path, in: &document)
        case .copy(let from, let path):
            let value = try JSONEditor.value(at: from, in: document)
            try JSONEditor.add(value, at: path, in: &document)
        case .test(let path, let value):
            guard try JSONEditor.value(at: path, in: document) == value else {
                throw JSONPatchError("test failed: the value at \"\(path)\" differs")
            }
        }
    }
}
