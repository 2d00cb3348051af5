import JSON

/// The pointer-addressed reads and edits behind ``JSONPatch/apply(_:to:)``.
///
/// Edits descend in place: each container on the way is moved out of its parent while its child is edited, so
/// nothing is copied except along the edited path's copy-on-write buffers that are actually shared.
enum JSONEditor {
    /// The value at `pointer`.
    static func value(at pointer: JSONPointer, in document: JSONValue) throws(JSONPatchError) -> JSONValue {
        var current = document
        for token in pointer.tokens {
            switch current {
            case .object(let object):
                guard let child = object[token] else { throw notFound(pointer) }
                current = child
            case .array(let array):
                guard let index = arrayIndex(token), index < array.count else { throw notFound(pointer) }
                current = array[index]
            default:
                throw notFound(pointer)
            }
        }
        return current
    }

    /// Adds `value` at `pointer`: sets an object member, or inserts into an array at an index or at the end (`-`).
    static func add(_ value: JSONValue, at pointer: JSONPointer, in document: inout JSONValue) throws(JSONPatchError) {
        guard !pointer.isRoot else {
            document = value
            return
        }
        try modifyParent(of: pointer, in: &document) { (parent, token) throws(JSONPatchError) in
            switch parent {
            case .object(var object):
                parent = .null
                object[token] = value
                parent = .object(object)
            case .array(var array):
                parent = .null
                defer { parent = .array(array) }
                if token == "-" {
                    array.append(value)
                    return
                }
                guard let index = arrayIndex(token) else { throw invalidIndex(token, pointer) }
                guard index <= array.count else { throw outOfRange(token, pointer) }
                array.insert(value, at: index)
            default:
                throw JSONPatchError("cannot add at \"\(pointer)\": the parent is not an object or array")
            }
        }
    }

    /// Removes the existing value at `pointer` and returns it.
    static func remove(at pointer: JSONPointer, in document: inout JSONValue) throws(JSONPatchError) -> JSONValue {
        guard !pointer.isRoot else { throw JSONPatchError("cannot remove the whole document") }
        var removed = JSONValue.null
        try modifyParent(of: pointer, in: &document) { (parent, token) throws(JSONPatchError) in
            switch parent {
            case .object(var object):
                parent = .null
                defer { parent = .object(object) }
                guard let value = object.removeValue(forKey: token) else { throw notFound(pointer) }
                removed = value
            case .array(var array):
                guard let index = arrayIndex(token), index < array.count else { throw notFound(pointer) }
                parent = .null
                removed = array.remove(at: index)
                parent = .array(array)
            default:
                throw notFound(pointer)
            }
        }
        return removed
    }

    /// Replaces the existing value at `pointer`.
    static func replace(
        at pointer: JSONPointer, with value: JSONValue, in document: inout JSONValue
    ) throws(JSONPatchError) {
        guard !pointer.isRoot else {
            document = value
            return
        }
        try modifyParent(of: pointer, in: &document) { (parent, token) throws(JSONPatchError) in
            switch parent {
            case .object(var object):
                guard object.index(forKey: token) != nil else { throw notFound(pointer) }
                parent = .null
                object[token] = value
                parent = .object(object)
            case .array(var array):
                guard let index = arrayIndex(token), index < array.count else { throw notFound(pointer) }
                parent = .null
                array[index] = value
                parent = .array(array)
            default:
                throw notFound(pointer)
            }
        }
    }

    /// The index an array reference token denotes: `0` or digits without a leading zero; nil otherwise.
    static func arrayIndex(_ token: String) -> Int? {
        let utf8 = token.utf8
        guard let first = utf8.first, first != UInt8(ascii: "0") || utf8.count == 1 else { return nil }
        guard utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(token)
    }

    // MARK: - Descending

    /// Calls `body` with the container holding the target of `pointer` (which must not be the root) and the
    /// target's token, after descending to it in place.
    private static func modifyParent(
        of pointer: JSONPointer,
        in document: inout JSONValue,
        _ body: (inout JSONValue, String) throws(JSONPatchError) -> Void
    ) throws(JSONPatchError) {
        let tokens = pointer.tokens
        try descend(into: &document, along: tokens[..<(tokens.count - 1)], pointer: pointer) {
            (parent) throws(JSONPatchError) in
            try body(&parent, tokens[tokens.count - 1])
        }
    }

    private static func descend(
        into value: inout JSONValue,
        along tokens: ArraySlice<String>,
        pointer: JSONPointer,
        _ body: (inout JSONValue) throws(JSONPatchError) -> Void
    ) throws(JSONPatchError) {
        guard let token = tokens.first else {
            try body(&value)
            return
        }
        let rest = tokens.dropFirst()
        switch value {
        case .object(var object):
            guard var child = object[token] else { throw notFound(pointer) }
            // Move the child out so that both it and its container are uniquely referenced while edited.
            value = .null
            object[token] = .null
            defer {
                object[token] = child
                value = .object(object)
            }
            try descend(into: &child, along: rest, pointer: pointer, body)
        case .array(var array):
            guard let index = arrayIndex(token), index < array.count else { throw notFound(pointer) }
            var child = array[index]
            value = .null
            array[index] = .null
            defer {
                array[index] = child
                value = .array(array)
            }
            try descend(into: &child, along: rest, pointer: pointer, body)
        default:
            throw notFound(pointer)
        }
    }

    // MARK: - Errors

    private static func notFound(_ pointer: JSONPointer) -> JSONPatchError {
        JSONPatchError("no value at \"\(pointer)\"")
    }

    private static func invalidIndex(_ token: String, _ pointer: JSONPointer) -> JSONPatchError {
        JSONPatchError("invalid array index \"\(token)\" in \"\(pointer)\"")
    }

    private static func outOfRange(_ token: String, _ pointer: JSONPointer) -> JSONPatchError {
        JSONPatchError("array index \(token) out of range in \"\(pointer)\"")
    }
}
