import JSON
import JSONPatch

/// The last version of one view model that a session's event stream received, as JSON: what the next patch applies
/// to.
struct ViewModelDocument: Sendable {
    var version: Int
    var json: JSONValue

    /// The names of the view models in a multiplexed event id, in the server's order.
    static let knownNames = ["search", "products", "photo"]

    /// A snapshot's data: the whole state, whose `version` must be a positive integer.
    init(snapshot data: String) throws(VMHostClientError) {
        let json: JSONValue
        do {
            json = try JSONParser.parse(data)
        } catch {
            throw .invalidResponse(message: "snapshot is not JSON: \(error)")
        }
        guard let version = Self.version(of: json) else {
            throw .invalidResponse(message: "snapshot without a version")
        }
        self.version = version
        self.json = json
    }

    /// This document with a patch's data applied; throws when the patch does not apply or does not move the version
    /// forward, and the document is then not to be trusted any more.
    func applying(patch data: String) throws(VMHostClientError) -> ViewModelDocument {
        let next: JSONValue
        do {
            let operations = try JSONPatch.parse(try JSONParser.parse(data))
            next = try JSONPatch.apply(operations, to: json)
        } catch {
            throw .invalidResponse(message: "patch does not apply: \(error)")
        }
        guard let nextVersion = Self.version(of: next), nextVersion > version else {
            throw .invalidResponse(message: "patch does not move the version past \(version)")
        }
        var result = self
        result.version = nextVersion
        result.json = next
        return result
    }

    static func version(of json: JSONValue) -> Int? {
        guard case .object(let object) = json, case .int(let version)? = object["version"], version >= 1 else {
            return nil
        }
        return version
    }
}
