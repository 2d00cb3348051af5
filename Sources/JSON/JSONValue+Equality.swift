extension JSONValue: Hashable {
    /// Structural equality with two JSON-specific rules: numbers compare numerically across `.int` and `.double`
    /// (exactly, without rounding the integer), and objects compare regardless of member order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.int(let a), .double(let b)), (.double(let b), .int(let a)): Int(exactly: b) == a
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    /// Whether the two values are certainly equal without a deep comparison: equal scalars, or arrays and objects
    /// sharing the same storage (an unmodified copy). `false` says nothing about equality. O(1) except for strings.
    public func isIdentical(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.array(let a), .array(let b)):
            a.withUnsafeBufferPointer { lhs in
                b.withUnsafeBufferPointer { rhs in lhs.baseAddress == rhs.baseAddress && lhs.count == rhs.count }
            }
        case (.object(let a), .object(let b)):
            a.isIdentical(to: b)
        case (.array, _), (.object, _), (_, .array), (_, .object):
            false
        default:
            self == other
        }
    }

    /// Hashes consistently with `==`: integral doubles hash like the equal int, objects hash order-independently.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0 as UInt8)
        case .bool(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(value)
        case .int(let value):
            hasher.combine(2 as UInt8)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(2 as UInt8)
            if let integral = Int(exactly: value) {
                hasher.combine(integral)
            } else {
                hasher.combine(value)
            }
        case .string(let value):
            hasher.combine(3 as UInt8)
            hasher.combine(value)
        case .array(let value):
            hasher.combine(4 as UInt8)
            hasher.combine(value)
        case .object(let value):
            hasher.combine(5 as UInt8)
            hasher.combine(value)
        }
    }
}
