import JSON
import VMHostTesting

/// Generates random JSON documents and random edits of them, reproducibly from a seed.
struct RandomDocuments {
    var generator: SplitMix64

    /// Keys chosen to collide often and to need pointer escaping.
    static let keys = [
        "a", "b", "c", "id", "name", "items", "/", "~", "a/b", "m~n", "~1", "~0/", "", "é", "0", "-",
    ]
    static let strings = [
        "", "x", "y", "hello", "a/b", "~", "quote\"", "line\nbreak", "\u{1}", "é", "😀", "\u{2028}",
    ]

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &generator)
    }

    mutating func chance(_ percent: Int) -> Bool {
        int(0...99) < percent
    }

    /// A random document: containers up to `maxDepth` levels deep with 0...6 members each, mixed scalars.
    mutating func document(depth: Int = 0, maxDepth: Int = 4) -> JSONValue {
        let roll = int(0...9)
        if depth < maxDepth && (depth == 0 || roll >= (depth <= 2 ? 4 : 7)) {
            return roll % 2 == 0 ? array(depth: depth, maxDepth: maxDepth) : object(depth: depth, maxDepth: maxDepth)
        }
        return scalar()
    }

    mutating func array(depth: Int, maxDepth: Int) -> JSONValue {
        .array((0..<int(0...6)).map { _ in document(depth: depth + 1, maxDepth: maxDepth) })
    }

    mutating func object(depth: Int, maxDepth: Int) -> JSONValue {
        var object = JSONObject()
        for _ in 0..<int(0...6) {
            object[key()] = document(depth: depth + 1, maxDepth: maxDepth)
        }
        return .object(object)
    }

    mutating func scalar() -> JSONValue {
        switch int(0...7) {
        case 0: .null
        case 1: .bool(chance(50))
        case 2, 3: .int(int(-3...3))
        case 4: .int(int(Int.min...Int.max))
        case 5: .double([0.5, -1.25, 1.0, 3.0, 1e300, 0.1][int(0...5)])
        default: .string(Self.strings[int(0...(Self.strings.count - 1))])
        }
    }

    mutating func key() -> String {
        Self.keys[int(0...(Self.keys.count - 1))]
    }

    /// `value` with 1...4 random edits: scalar changes, array inserts and removals, member additions and removals,
    /// type changes, reordering of object members.
    mutating func mutated(_ value: JSONValue) -> JSONValue {
        var result = value
        for _ in 0..<int(1...4) {
            result = mutate(result, depth: 0)
        }
        return result
    }

    private mutating func mutate(_ value: JSONValue, depth: Int) -> JSONValue {
        switch value {
        case .array(var elements):
            switch int(0...9) {
            case 0, 1:
                elements.insert(document(depth: depth + 1), at: int(0...elements.count))
            case 2...3 where !elements.isEmpty:
                elements.remove(at: int(0...(elements.count - 1)))
            case 4:
                for _ in 0..<int(1...3) { elements.append(document(depth: depth + 1)) }
            case 5 where elements.count > 1:
                elements.swapAt(0, elements.count - 1)
            case 6:
                return chance(50) ? document(depth: depth) : .array(elements.map { mutate($0, depth: depth + 1) })
            default:
                guard !elements.isEmpty else { return scalar() }
                let index = int(0...(elements.count - 1))
                elements[index] = mutate(elements[index], depth: depth + 1)
            }
            return .array(elements)
        case .object(var object):
            switch int(0...9) {
            case 0, 1:
                object[key()] = document(depth: depth + 1)
            case 2...3 where !object.isEmpty:
                object.removeValue(forKey: object[int(0...(object.count - 1))].key)
            case 4:
                object = JSONObject(object.reversed().map { ($0.key, $0.value) })
            case 5:
                guard chance(50) else { return document(depth: depth) }
                for member in object {
                    object[member.key] = mutate(member.value, depth: depth + 1)
                }
            default:
                guard !object.isEmpty else { return .array([]) }
                let member = object[int(0...(object.count - 1))]
                object[member.key] = mutate(member.value, depth: depth + 1)
            }
            return .object(object)
        default:
            return chance(80) ? scalar() : document(depth: depth)
        }
    }
}
