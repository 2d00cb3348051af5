/// The path parameters a route pattern captured (`:id` → `parameters["id"]`), in pattern order.
///
/// A route has one or two parameters: a list searched in order, not a dictionary (hashing the names cost more
/// than the rest of the routing of a command). The first is kept inline: every session route has `:id`, and an
/// array for it was an allocation per request.
public struct PathParameters: Sendable, Equatable {
    private var first: (name: String, value: String)?
    private var others: [(name: String, value: String)] = []

    /// No parameters.
    public init() {}

    /// The value captured for `name`, if the pattern has it.
    public subscript(name: String) -> String? {
        if let first, first.name == name { return first.value }
        for pair in others where pair.name == name { return pair.value }
        return nil
    }

    /// Adds a captured value; a repeated name takes the later value.
    mutating func append(_ name: String, _ value: String) {
        guard let current = first else {
            first = (name, value)
            return
        }
        if current.name == name {
            first = (name, value)
        } else if let index = others.firstIndex(where: { $0.name == name }) {
            others[index].value = value
        } else {
            others.append((name, value))
        }
    }

    /// The names in pattern order.
    public var names: [String] { pairs.map(\.name) }

    private var pairs: [(name: String, value: String)] { (first.map { [$0] } ?? []) + others }

    public static func == (lhs: PathParameters, rhs: PathParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}
