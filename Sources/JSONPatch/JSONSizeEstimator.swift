import Bytes
import JSON

/// Cheap estimates of compact serialised sizes, used by the diff's size guard.
///
/// Strings are counted without escapes, so the result is a lower bound for strings that need escaping.
enum JSONSizeEstimator {
    /// The estimated size of `value`, or nil as soon as it exceeds `limit`.
    static func size(of value: JSONValue, limit: Int = .max) -> Int? {
        var total = 0
        return accumulate(value, into: &total, limit: limit) ? total : nil
    }

    /// The estimated size of `pointer` as a JSON string, without quotes.
    static func size(of pointer: JSONPointer) -> Int {
        pointer.tokens.reduce(0) { $0 + $1.utf8.count + 1 }
    }

    /// Adds the size of `value` to `total`; false once the total exceeds `limit`.
    private static func accumulate(_ value: JSONValue, into total: inout Int, limit: Int) -> Bool {
        switch value {
        case .null:
            total += 4
        case .bool(let flag):
            total += flag ? 4 : 5
        case .int(let integer):
            total += DecimalDigits.count(of: integer)
        case .double(let double):
            total += double.isFinite ? double.description.utf8.count : 4
        case .string(let string):
            total += string.utf8.count + 2
        case .array(let elements):
            total += 1 + max(elements.count, 1)
            for element in elements {
                guard total <= limit, accumulate(element, into: &total, limit: limit) else { return false }
            }
        case .object(let object):
            total += 1 + max(object.count, 1)
            for member in object {
                total += member.key.utf8.count + 3
                guard total <= limit, accumulate(member.value, into: &total, limit: limit) else { return false }
            }
        }
        return total <= limit
    }
}
