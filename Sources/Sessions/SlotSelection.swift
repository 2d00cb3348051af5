/// Some of a session's slots, in the session's order: those whose bit is set in a mask (bit `i`: `slots[i]`), or
/// every one. Iterating it touches no slot that is not selected.
/// NB: inlinable: the journal iterates it on every write (a call per slot across modules cost ~250 instructions a
/// command).
public struct SlotSelection: Sequence {
    @usableFromInline let slots: [ViewModelSlot]
    /// The selected slots' bits; nil: every slot.
    @usableFromInline let mask: UInt64?

    /// Every slot of `slots`.
    public init(all slots: [ViewModelSlot]) {
        self.slots = slots
        mask = nil
    }

    /// The slots of `slots` whose bit is set in `mask`; every slot when there are more than a mask holds.
    @inlinable init(_ slots: [ViewModelSlot], mask: UInt64) {
        self.slots = slots
        self.mask = slots.count > UInt64.bitWidth ? nil : mask & Self.mask(ofAll: slots.count)
    }

    /// The bits of the first `count` slots (at most a mask's width).
    @inlinable static func mask(ofAll count: Int) -> UInt64 {
        count >= UInt64.bitWidth ? .max : (1 << UInt64(count)) &- 1
    }

    /// The bit of the slot at `index` (none past a mask's width: those are always selected).
    @inlinable static func bit(of index: Int) -> UInt64 {
        index < UInt64.bitWidth ? 1 << UInt64(index) : 0
    }

    @inlinable public func makeIterator() -> Iterator {
        Iterator(slots: slots, mask: mask)
    }

    public struct Iterator: IteratorProtocol {
        @usableFromInline let slots: [ViewModelSlot]
        @usableFromInline var mask: UInt64?
        @usableFromInline var index = 0

        @inlinable init(slots: [ViewModelSlot], mask: UInt64?) {
            self.slots = slots
            self.mask = mask
        }

        @inlinable public mutating func next() -> ViewModelSlot? {
            guard let bits = mask else {
                guard index < slots.count else { return nil }
                defer { index += 1 }
                return slots[index]
            }
            guard bits != 0 else { return nil }
            mask = bits & (bits &- 1)
            return slots[bits.trailingZeroBitCount]
        }
    }
}
