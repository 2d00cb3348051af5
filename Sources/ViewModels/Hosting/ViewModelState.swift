import JSON

/// A view model's state: its JSON is an object of fixed members, each built from one comparable part of the
/// state.
///
/// ``jsonMembers`` is the one description of the state's JSON shape: ``json`` builds the object from it, and
/// ``changedMembers(from:)`` compares the typed parts to find what a change touched, so the host diffs and
/// serialises only those members and keeps no JSON tree of the state between versions.
public protocol ViewModelState: Sendable, Equatable {
    /// The members of the state's JSON object, in order.
    static var jsonMembers: [StateMember<Self>] { get }
}

extension ViewModelState {
    /// The API's JSON of the state (without `version`, which the state channel adds).
    public var json: JSONValue {
        var object = JSONObject()
        object.reserveCapacity(Self.jsonMembers.count)
        for member in Self.jsonMembers {
            object.append(key: member.key, value: member.json(self))
        }
        return .object(object)
    }

    /// The members whose part differs between `old` and this state, with both JSON values, in member order.
    public func changedMembers(from old: Self) -> [(key: String, old: JSONValue, new: JSONValue)] {
        var changes: [(key: String, old: JSONValue, new: JSONValue)] = []
        for member in Self.jsonMembers where member.differs(old, self) {
            changes.append((member.key, member.json(old), member.json(self)))
        }
        return changes
    }
}

/// One member of a ``ViewModelState``'s JSON object: its key, the part of the state it shows, and that part's
/// JSON.
public struct StateMember<State>: Sendable {
    /// The member's key.
    public let key: String
    /// The member's JSON in `state`.
    let json: @Sendable (State) -> JSONValue
    /// Whether the member's part differs between two states.
    let differs: @Sendable (State, State) -> Bool

    /// A member showing `part` of the state as `json`; two states show the same member when their parts are equal.
    public init<Part: Equatable & Sendable>(
        _ key: String, _ part: @escaping @Sendable (State) -> Part,
        json: @escaping @Sendable (Part) -> JSONValue
    ) {
        self.key = key
        self.json = { json(part($0)) }
        differs = { part($0) != part($1) }
    }
}
