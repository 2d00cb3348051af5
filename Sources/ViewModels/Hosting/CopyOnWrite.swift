/// A part of a state kept in a box that copies of the state share until one of them changes it (copy on write):
/// copying the part is one retain, however many strings and arrays it holds.
///
/// For a large part of a state that is copied far more often than it changes (the host copies a state several
/// times per command: docs/performance.md, "Receipts"). Reads and changes happen in place; a change made while
/// another copy shares the box first gives this copy a box of its own, so copies stay independent values.
/// Removing the attribute from a property (and reading the property where its `_`-prefixed wrapper is read) leaves
/// the same behaviour, only slower.
@propertyWrapper
public struct CopyOnWrite<Value: Sendable & Equatable>: Sendable, Equatable {
    private var box: Box

    /// Boxes `wrappedValue`.
    public init(wrappedValue: Value) {
        box = Box(wrappedValue)
    }

    /// The value, read in the box and changed in a box of this copy's own.
    public var wrappedValue: Value {
        _read { yield box.value }
        // NB: a value assigned whole goes into a new box when the box is shared, without copying the old value.
        set {
            if isKnownUniquelyReferenced(&box) {
                box.value = newValue
            } else {
                box = Box(newValue)
            }
        }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
            yield &box.value
        }
    }

    /// Equal when they share a box (without comparing the values), or when their values are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.value == rhs.box.value
    }

    /// The box.
    ///
    /// NB: `@unchecked Sendable`: a box is written only through the one wrapper that holds the only reference to it
    /// (`wrappedValue`'s `set` and `_modify` ask `isKnownUniquelyReferenced` first), so a box that two copies, or two
    /// threads, can see is never written.
    private final class Box: @unchecked Sendable {
        var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }
}
