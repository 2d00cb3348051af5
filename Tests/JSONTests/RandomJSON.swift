import JSON
import VMHostTesting

/// Generates random JSON documents for round-trip tests.
struct RandomJSON {
    var generator: SplitMix64

    static let strings = [
        "", "a", "hello world", "quote \" inside", "back\\slash", "slash/", "tab\tnew\nline", "\u{0}\u{1}\u{1F}",
        "\u{7F}", "é", "e\u{301}", "€", "😀", "line\u{2028}para\u{2029}", "\u{10FFFF}", "日本語", "~0~1",
    ]

    init(seed: UInt64) {
        generator = SplitMix64(seed: seed)
    }

    mutating func value(depth: Int = 0, maxDepth: Int = 4) -> JSONValue {
        let choice = Int.random(in: 0..<10, using: &generator)
        switch choice {
        case 7...8 where depth < maxDepth:
            let count = Int.random(in: 0...6, using: &generator)
            return .array((0..<count).map { _ in value(depth: depth + 1, maxDepth: maxDepth) })
        case 9 where depth < maxDepth:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                object[string()] = value(depth: depth + 1, maxDepth: maxDepth)
            }
            return .object(object)
        default:
            return scalar()
        }
    }

    mutating func scalar() -> JSONValue {
        switch Int.random(in: 0..<9, using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(Int.random(in: -1000...1000, using: &generator))
        case 3: return .int(Int.random(in: Int.min...Int.max, using: &generator))
        case 4: return .double(Double.random(in: -1e6...1e6, using: &generator))
        case 5:
            let bits = UInt64.random(in: 0...UInt64.max, using: &generator)
            let double = Double(bitPattern: bits)
            return .double(double.isFinite ? double : 0.5)
        case 6:
            let specials = [0.0, -0.0, 1.0, 0.1, 1e300, .leastNonzeroMagnitude, 1e20, 123.456]
            return .double(specials[Int.random(in: 0..<specials.count, using: &generator)])
        default: return .string(string())
        }
    }

    mutating func string() -> String {
        if Bool.random(using: &generator) {
            return Self.strings[Int.random(in: 0..<Self.strings.count, using: &generator)]
        }
        let length = Int.random(in: 0...8, using: &generator)
        var scalars = String.UnicodeScalarView()
        for _ in 0..<length {
            let value: UInt32
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: value = UInt32.random(in: 0..<0x80, using: &generator)
            case 1: value = UInt32.random(in: 0x80..<0xD800, using: &generator)
            case 2: value = UInt32.random(in: 0xE000..<0x10000, using: &generator)
            default: value = UInt32.random(in: 0x10000...0x10FFFF, using: &generator)
            }
            scalars.append(Unicode.Scalar(value)!)
        }
        return String(scalars)
    }
}
