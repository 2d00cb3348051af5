/// The path parameters a route pattern captured (`:id` → `parameters["id"]`), in pattern order.
///
/// A route has one or two parameters: a list searched in order, not a dictionary (hashing the names cost more
/// than the rest of the routing of a command).
public struct PathParameters: Sendable, Equatable {
    private var pairs: [(name: String, value: String)] = []

    /// No parameters.
    public init() {}

    /// The value captured for `name`, if the pattern has it.
    public subscript(name: String) -> String? {
        for pair in pairs where pair.name == name { return pair.value }
        return nil
    }

    /// Adds a captured value; a repeated name takes the later value.
    mutating func append(_ name: String, _ value: String) {
        if let index = pairs.firstIndex(where: { $0.name == name }) {
            pairs[index].value = value
        } else {
            pairs.append((name, value))
        }
    }

    /// The names in pattern order.
    public var names: [String] { pairs.map(\.name) }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}
