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

    /// The members whose part differs between `old` and this state, in member order: their positions in
    /// ``jsonMembers``, and their keys with both JSON values (what ``JSONPatch/diff(changedMembers:whole:)`` takes).
    public func changedMembers(
        from old: Self
    ) -> (indexes: [Int], members: [(key: String, old: JSONValue, new: JSONValue)]) {
        var indexes: [Int] = []
        var members: [(key: String, old: JSONValue, new: JSONValue)] = []
        for (index, member) in Self.jsonMembers.enumerated() where member.differs(old, self) {
            indexes.append(index)
            members.append((member.key, member.json(old), member.json(self)))
        }
        return (indexes, members)
    }
}

/// The JSON text of a state, member by member, kept between versions: members a change did not touch are copied
/// instead of built and serialised again.
///
/// Worth its memory only while the text is read at every version (a view model with open streams answers each
/// command with its state); otherwise it is dropped (``serialize(_:first:into:keeping:)`` with `keeping: false`).
public struct StateText<State: ViewModelState>: Sendable {
    /// The members' text as last written: each member as `,"key":value`, in order.
    ///
    /// NB: one buffer, not one per member: unchanged neighbours are copied with one append, and a version
    /// allocates one buffer instead of one per changed member (docs/performance.md, "Receipts").
    private var text: [UInt8] = []
    /// Where each member's text starts and ends in `text`; empty when nothing is kept.
    private var starts: [Int] = []
    private var ends: [Int] = []
    /// Whether each member's kept text is still its current text.
    private var valid: [Bool] = []

    /// Creates an empty cache.
    public init() {}

    /// Forgets the text of the member at `index` in ``ViewModelState/jsonMembers`` (its part changed).
    public mutating func invalidate(_ index: Int) {
        if index < valid.count { valid[index] = false }
    }

    /// Forgets everything (the state was replaced by one not compared member by member).
    public mutating func invalidateAll() {
        text = []
        starts = []
        ends = []
        valid = []
    }

    /// Appends `state` as a JSON object with `first` as its first member (a channel's `version`, which is none of
    /// the state's members), using and keeping the members' text when `keeping`, dropping it otherwise.
    public mutating func serialize(
        _ state: State, first: (key: String, value: JSONValue), into buffer: inout [UInt8], keeping: Bool
    ) {
        let stateMembers = State.jsonMembers
        buffer.append(UInt8(ascii: "{"))
        JSONValue.string(first.key).serialize(into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        first.value.serialize(into: &buffer)
        guard keeping else {
            if !ends.isEmpty { invalidateAll() }
            for member in stateMembers { Self.write(member, of: state, into: &buffer) }
            buffer.append(UInt8(ascii: "}"))
            return
        }
        let start = buffer.count
        if ends.count != stateMembers.count {
            // Nothing kept: every member is written.
            starts = Array(repeating: 0, count: stateMembers.count)
            ends = Array(repeating: 0, count: stateMembers.count)
            valid = Array(repeating: false, count: stateMembers.count)
        }
        // A run of members whose kept text is current, copied in one append when the run ends.
        var runStart: Int? = nil
        var index = 0
        while index <= stateMembers.count {
            let isKept = index < stateMembers.count && valid[index]
            if isKept {
                if runStart == nil { runStart = index }
                index += 1
                continue
            }
            if let first = runStart {
                let from = starts[first]
                let shift = buffer.count - start - from
                buffer.append(contentsOf: text[from..<ends[index - 1]])
                for kept in first..<index {
                    starts[kept] += shift
                    ends[kept] += shift
                }
                runStart = nil
            }
            guard index < stateMembers.count else { break }
            starts[index] = buffer.count - start
            Self.write(stateMembers[index], of: state, into: &buffer)
            ends[index] = buffer.count - start
            valid[index] = true
            index += 1
        }
        text = Array(buffer[start...])
        buffer.append(UInt8(ascii: "}"))
    }

    /// Appends `,"key":value` for `member` of `state`.
    private static func write(_ member: StateMember<State>, of state: State, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: ","))
        buffer.append(contentsOf: member.keyText)
        member.json(state).serialize(into: &buffer)
    }
}

/// One member of a ``ViewModelState``'s JSON object: its key, the part of the state it shows, and that part's
/// JSON. A class: the members are walked on every change, and a reference is copied with one retain where a
/// struct of closures would take four.
public final class StateMember<State>: Sendable {
    /// The member's key.
    public let key: String
    /// The member's JSON in `state`.
    let json: @Sendable (State) -> JSONValue
    /// Whether the member's part differs between two states.
    let differs: @Sendable (State, State) -> Bool
    /// `"key":` as JSON text.
    let keyText: [UInt8]

    /// A member showing `part` of the state as `json`; two states show the same member when their parts are equal.
    public init<Part: Equatable & Sendable>(
        _ key: String, _ part: @escaping @Sendable (State) -> Part,
        json: @escaping @Sendable (Part) -> JSONValue
    ) {
        self.key = key
        self.json = { json(part($0)) }
        differs = { part($0) != part($1) }
        keyText = JSONValue.string(key).serializedBytes + [UInt8(ascii: ":")]
    }

    /// A member that `differs` compares in place (a large part, which `init(_:_:json:)` would copy twice per
    /// comparison) and `json` shows.
    public init(
        _ key: String, differs: @escaping @Sendable (State, State) -> Bool,
        json: @escaping @Sendable (State) -> JSONValue
    ) {
        self.key = key
        self.json = json
        self.differs = differs
        keyText = JSONValue.string(key).serializedBytes + [UInt8(ascii: ":")]
    }
}
