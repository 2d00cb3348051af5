import JSON
import Services

/// Reads a snapshot object field by field, naming the field in every error.
///
/// Snapshots come from Redis, so they are external data: nothing here traps on a wrong shape.
package struct SnapshotReader {
    private let object: JSONObject
    private let path: String

    /// A reader of `value`, which must be an object.
    package init(_ value: JSONValue, path: String = "") throws(SnapshotError) {
        guard let object = value.objectValue else {
            throw SnapshotError("\(path.isEmpty ? "snapshot" : path) is not an object")
        }
        self.object = object
        self.path = path
    }

    private func field(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func missing(_ key: String, _ kind: String) -> SnapshotError {
        SnapshotError("\(field(key)) is not \(kind)")
    }

    package func value(_ key: String) -> JSONValue { object[key] ?? .null }

    package func string(_ key: String) throws(SnapshotError) -> String {
        guard let value = object[key]?.stringValue else { throw missing(key, "a string") }
        return value
    }

    package func optionalString(_ key: String) throws(SnapshotError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw missing(key, "a string or null") }
        return string
    }

    package func int(_ key: String) throws(SnapshotError) -> Int {
        guard let value = object[key]?.intValue else { throw missing(key, "an integer") }
        return value
    }

    package func optionalInt(_ key: String) throws(SnapshotError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let int = value.intValue else { throw missing(key, "an integer or null") }
        return int
    }

    package func bool(_ key: String) throws(SnapshotError) -> Bool {
        guard let value = object[key]?.boolValue else { throw missing(key, "a boolean") }
        return value
    }

    package func object(_ key: String) throws(SnapshotError) -> SnapshotReader {
        try SnapshotReader(value(key), path: field(key))
    }

    package func optionalObject(_ key: String) throws(SnapshotError) -> SnapshotReader? {
        let value = value(key)
        return value.isNull ? nil : try SnapshotReader(value, path: field(key))
    }

    package func array<Element>(
        _ key: String, _ read: (SnapshotReader) throws(SnapshotError) -> Element
    ) throws(SnapshotError) -> [Element] {
        guard let list = object[key]?.arrayValue else { throw missing(key, "an array") }
        var result: [Element] = []
        result.reserveCapacity(list.count)
        for (index, entry) in list.enumerated() {
            result.append(try read(SnapshotReader(entry, path: "\(field(key))[\(index)]")))
        }
        return result
    }

    package func strings(_ key: String) throws(SnapshotError) -> [String] {
        guard let list = object[key]?.arrayValue else { throw missing(key, "an array") }
        var result: [String] = []
        for entry in list {
            guard let string = entry.stringValue else { throw missing(key, "an array of strings") }
            result.append(string)
        }
        return result
    }

    /// An ``UpstreamError`` written by ``UpstreamError/json``, or nil for null.
    package func optionalError(_ key: String) throws(SnapshotError) -> UpstreamError? {
        guard let reader = try optionalObject(key) else { return nil }
        guard let kind = UpstreamError.Kind(rawValue: try reader.string("kind")) else {
            throw SnapshotError("\(field(key)).kind is not an error kind")
        }
        return UpstreamError(
            kind: kind, message: try reader.string("message"), status: try reader.optionalInt("status"),
            code: try reader.optionalInt("code")
        )
    }
}

extension Loadable {
    /// The journal form: `{"value", "error", "status", "request"}` with the whole value and the request of a
    /// load in flight (``json(_:)`` shows neither).
    package func writeSnapshot(
        to json: inout JSONTextWriter, value writeValue: (Value, inout JSONTextWriter) -> Void,
        request writeRequest: (Request, inout JSONTextWriter) -> Void
    ) {
        json.openObject()
        // NB: one match of the case writes all its members: each `switch self` binding a payload copied the whole
        // `Loadable` (~170 instructions, and as many to destroy the copy), and the journal writes a snapshot on
        // every command. The members' order is the same in every case.
        switch self {
        case .idle:
            Self.writeMembers(value: nil, error: nil, status: "idle", to: &json, writeValue)
        case .loading(let request, let previous):
            Self.writeMembers(value: previous, error: nil, status: "loading", to: &json, writeValue)
            json.key("request")
            writeRequest(request, &json)
        case .loaded(let value):
            Self.writeMembers(value: value, error: nil, status: "loaded", to: &json, writeValue)
        case .failed(let error, let previous):
            Self.writeMembers(value: previous, error: error, status: "failed", to: &json, writeValue)
        }
        json.closeObject()
    }

    /// The members every case has: `value` (or null), `error` (or null), `status`.
    private static func writeMembers(
        value: Value?, error: UpstreamError?, status: String, to json: inout JSONTextWriter,
        _ writeValue: (Value, inout JSONTextWriter) -> Void
    ) {
        json.key("value")
        if let value { writeValue(value, &json) } else { json.null() }
        json.key("error")
        if let error { json.value(error.json) } else { json.null() }
        json.key("status")
        json.string(status)
    }

    /// The journal's extras of a load (``HostedViewModel/writeExtras(to:)``): its snapshot form
    /// (``writeSnapshot(to:value:request:)``) without the value, which the state's JSON shows, and with whether
    /// there is one: `{"hasValue", "error", "status", "request"}`. NB: no payload bound but the request: binding
    /// one copied the whole `Loadable`.
    package func writeExtras(
        to json: inout JSONTextWriter, request writeRequest: (Request, inout JSONTextWriter) -> Void
    ) {
        // NB: the extras of a load with no payload (most loads, most of the time) as one literal each: the journal
        // writes the extras on every change (`SnapshotTests.extrasAreTheSnapshotWithoutTheValue` checks them
        // against the snapshot).
        switch self {
        case .idle:
            json.literal(#"{"hasValue":false,"error":null,"status":"idle"}"#)
        case .loaded:
            json.literal(#"{"hasValue":true,"error":null,"status":"loaded"}"#)
        case .loading(let request, .some):
            Self.openExtras(hasValue: true, error: nil, status: "loading", to: &json)
            json.key("request")
            writeRequest(request, &json)
            json.closeObject()
        case .loading(let request, .none):
            Self.openExtras(hasValue: false, error: nil, status: "loading", to: &json)
            json.key("request")
            writeRequest(request, &json)
            json.closeObject()
        case .failed(let error, .some):
            Self.openExtras(hasValue: true, error: error, status: "failed", to: &json)
            json.closeObject()
        case .failed(let error, .none):
            Self.openExtras(hasValue: false, error: error, status: "failed", to: &json)
            json.closeObject()
        }
    }

    /// Opens the extras' object and writes the members every case has.
    private static func openExtras(
        hasValue: Bool, error: UpstreamError?, status: String, to json: inout JSONTextWriter
    ) {
        json.openObject()
        json.key("hasValue")
        json.bool(hasValue)
        json.key("error")
        if let error { json.value(error.json) } else { json.null() }
        json.key("status")
        json.string(status)
    }

    /// The snapshot form (``writeSnapshot(to:value:request:)``'s JSON) of the load whose extras are `extras`
    /// (``writeExtras(to:request:)``) and whose value, in its snapshot form, is `value` (nil: the state shows none).
    package static func snapshot(extras: JSONValue, value: JSONValue?) throws(SnapshotError) -> JSONValue {
        guard var members = extras.objectValue, let hasValue = members["hasValue"]?.boolValue else {
            throw SnapshotError("a load's extras are not an object with hasValue")
        }
        members["hasValue"] = nil
        if hasValue {
            guard let value else { throw SnapshotError("a load's extras have a value that the state does not show") }
            members["value"] = value
        } else {
            members["value"] = .null
        }
        return .object(members)
    }

    /// Reads ``writeSnapshot(to:value:request:)``.
    package init(
        snapshot reader: SnapshotReader, value readValue: (SnapshotReader) throws(SnapshotError) -> Value,
        request readRequest: (SnapshotReader) throws(SnapshotError) -> Request
    ) throws(SnapshotError) {
        var value: Value?
        if let valueReader = try reader.optionalObject("value") { value = try readValue(valueReader) }
        switch try reader.string("status") {
        case "idle": self = .idle
        case "loading": self = .loading(try readRequest(reader.object("request")), previous: value)
        case "loaded":
            guard let value else { throw SnapshotError("a loaded value is null") }
            self = .loaded(value)
        case "failed":
            guard let error = try reader.optionalError("error") else { throw SnapshotError("a failure has no error") }
            self = .failed(error, previous: value)
        case let other: throw SnapshotError("unknown status '\(other)'")
        }
    }
}
