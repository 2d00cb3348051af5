import JSON

/// One RFC 6902 JSON Patch operation.
public enum JSONPatchOperation: Sendable, Hashable {
    /// Adds `value` at `path`: inserts into an array (index or `-` for the end), or sets an object member.
    case add(path: JSONPointer, value: JSONValue)
    /// Removes the existing value at `path`.
    case remove(path: JSONPointer)
    /// Replaces the existing value at `path`.
    case replace(path: JSONPointer, value: JSONValue)
    /// Removes the value at `from` and adds it at `path`.
    case move(from: JSONPointer, path: JSONPointer)
    /// Adds a copy of the value at `from` at `path`.
    case copy(from: JSONPointer, path: JSONPointer)
    /// Fails unless the value at `path` equals `value`.
    case test(path: JSONPointer, value: JSONValue)

    /// The `op` member: `add`, `remove`, `replace`, `move`, `copy` or `test`.
    public var name: String { staticName.description }

    /// ``name`` as a literal (written into patches without a copy).
    var staticName: StaticString {
        switch self {
        case .add: "add"
        case .remove: "remove"
        case .replace: "replace"
        case .move: "move"
        case .copy: "copy"
        case .test: "test"
        }
    }

    /// The target location.
    public var path: JSONPointer {
        switch self {
        case .add(let path, _), .remove(let path), .replace(let path, _), .test(let path, _): path
        case .move(_, let path), .copy(_, let path): path
        }
    }

    /// The source location of `move` and `copy`.
    public var from: JSONPointer? {
        switch self {
        case .move(let from, _), .copy(let from, _): from
        case .add, .remove, .replace, .test: nil
        }
    }

    /// The value of `add`, `replace` and `test`.
    public var value: JSONValue? {
        switch self {
        case .add(_, let value), .replace(_, let value), .test(_, let value): value
        case .remove, .move, .copy: nil
        }
    }

    /// The operation as a JSON object with members in the order `op`, `from`, `path`, `value`.
    public var json: JSONValue {
        var object = JSONObject()
        object["op"] = .string(name)
        if let from { object["from"] = .string(from.description) }
        object["path"] = .string(path.description)
        if let value { object["value"] = value }
        return .object(object)
    }

    /// Parses an operation object. Members other than `op`, `from`, `path` and `value` are ignored.
    public init(json: JSONValue) throws(JSONPatchError) {
        guard case .object(let object) = json else { throw JSONPatchError("operation is not an object") }
        guard let op = object["op"] else { throw JSONPatchError("operation has no \"op\"") }
        guard case .string(let name) = op else { throw JSONPatchError("\"op\" is not a string") }
        let path = try Self.pointer(object, "path")
        switch name {
        case "add": self = .add(path: path, value: try Self.value(object))
        case "remove": self = .remove(path: path)
        case "replace": self = .replace(path: path, value: try Self.value(object))
        case "move": self = .move(from: try Self.pointer(object, "from"), path: path)
        case "copy": self = .copy(from: try Self.pointer(object, "from"), path: path)
        case "test": self = .test(path: path, value: try Self.value(object))
        default: throw JSONPatchError("unknown op \"\(name)\"")
        }
    }

    /// Appends the compact JSON text of ``json`` without building it.
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(#"{"op":""#)
        buffer.append(staticName)
        buffer.append(UInt8(ascii: "\""))
        if let from {
            buffer.append(#","from":"#)
            from.serializeAsJSONString(into: &buffer)
        }
        buffer.append(#","path":"#)
        path.serializeAsJSONString(into: &buffer)
        if let value {
            buffer.append(#","value":"#)
            value.serialize(into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    private static func pointer(_ object: JSONObject, _ member: String) throws(JSONPatchError) -> JSONPointer {
        guard let value = object[member] else { throw JSONPatchError("operation has no \"\(member)\"") }
        guard case .string(let string) = value else { throw JSONPatchError("\"\(member)\" is not a string") }
        return try JSONPointer(parsing: string)
    }

    private static func value(_ object: JSONObject) throws(JSONPatchError) -> JSONValue {
        guard let value = object["value"] else { throw JSONPatchError("operation has no \"value\"") }
        return value
    }
}
