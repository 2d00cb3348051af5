import JSON
import JSONPatch

/// Parses JSON text written in a test.
func json(_ text: String) throws -> JSONValue {
    try JSONParser.parse(text)
}

/// Parses a patch written as JSON text in a test.
func patch(_ text: String) throws -> [JSONPatchOperation] {
    try JSONPatch.parse(json(text))
}

/// The error from applying `operations` to `document`, or nil when it applies.
func applyError(_ operations: [JSONPatchOperation], to document: JSONValue) -> JSONPatchError? {
    do {
        _ = try JSONPatch.apply(operations, to: document)
        return nil
    } catch {
        return error
    }
}

/// The patch as compact JSON text.
func serialized(_ operations: [JSONPatchOperation]) -> String {
    var buffer: [UInt8] = []
    JSONPatch.serialize(operations, into: &buffer)
    return String(decoding: buffer, as: UTF8.self)
}
