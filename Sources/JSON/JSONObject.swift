/// A JSON object: members in insertion order, unique keys.
///
/// Objects are usually small, so members live in an array searched linearly; once an object grows past
/// ``JSONObject/indexThreshold`` members, a key → position index is maintained alongside.
/// Equality and hashing ignore member order.
public struct JSONObject: Sendable {
    /// A member: its key and value.
    public typealias Member = (key: String, value: JSONValue)

    /// Above this many members, lookups go through a dictionary index instead of a linear scan.
    static let indexThreshold = 16

    private var members: [Member]
    /// Key → position in `members`; non-nil only while `members.count > indexThreshold`.
    private var positions: [String: Int]?

    /// An empty object.
    public init() {
        members = []
        positions = nil
    }

    /// An object with `pairs` in order; when a key repeats, the last value wins at the first key's position.
    public init(_ pairs: [(String, JSONValue)]) {
        self.init()
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            self[key] = value
        }
    }

    /// The member keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The position of the member named `key`, or nil.
    public func index(forKey key: String) -> Int? {
        if let positions { return positions[key] }
        for position in members.indices where members[position].key == key {
            return position
        }
        return nil
    }

    /// The value of the member named `key`. Setting `nil` removes the member; setting an existing key replaces
    /// the value in place; setting a new key appends a member.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = index(forKey: key) else { return nil }
            return members[position].value
        }
        set {
            guard let newValue else {
                removeValue(forKey: key)
                return
            }
            if let position = index(forKey: key) {
                members[position].value = newValue
                return
            }
            append(key: key, value: newValue)
        }
    }

    /// Reserves room for `count` members.
    public mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    /// Appends a member without looking `key` up: for building an object whose keys are known to be unique.
    public mutating func append(key: String, value: JSONValue) {
        assert(index(forKey: key) == nil, "duplicate key \(key)")
        members.append((key: key, value: value))
        if positions != nil {
            positions?[key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildPositions()
        }
    }

    /// Removes the member named `key`, returning its value, or nil when there was none.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let position = index(forKey: key) else { return nil }
        let removed = members.remove(at: position).value
        if positions != nil {
            if members.count > Self.indexThreshold {
                positions?[key] = nil
                for shifted in position..<members.count {
                    positions?[members[shifted].key] = shifted
                }
            } else {
                positions = nil
            }
        }
        return removed
    }

    /// Whether both objects share the same member storage, which makes them equal without comparing members.
    /// `false` says nothing about equality.
    public func isIdentical(to other: JSONObject) -> Bool {
        members.withUnsafeBufferPointer { lhs in
            other.members.withUnsafeBufferPointer { rhs in
                lhs.baseAddress == rhs.baseAddress && lhs.count == rhs.count
            }
        }
    }

    private mutating func rebuildPositions() {
        var index = [String: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() {
            index[member.key] = position
        }
        positions = index
    }
}

extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    public var startIndex: Int { 0 }

    /// The position after the last member.
    public var endIndex: Int { members.count }

    /// The member at `position` (in insertion order).
    public subscript(position: Int) -> Member {
        members[position]
    }

    /// Iterates the members in insertion order.
    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object with the members in the written order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}

extension JSONObject: Hashable {
    /// Objects are equal when they have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isIdentical(to: rhs) { return true }
        for (position, member) in lhs.members.enumerated() {
            // Fast path: members are usually in the same order.
            let other = rhs.members[position]
            if other.key == member.key {
                guard other.value == member.value else { return false }
            } else {
                guard let value = rhs[member.key], value == member.value else { return false }
            }
        }
        return true
    }

    /// Hashes the members order-independently.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined = combined &+ memberHasher.finalize()
        }
        hasher.combine(members.count)
        hasher.combine(combined)
    }
}

extension JSONObject: CustomStringConvertible {
    /// The compact JSON text of the object.
    public var description: String { JSONValue.object(self).serializedString }
}
