import JSON

/// Computes the `add`/`remove`/`replace` operations behind ``JSONPatch/diff(from:to:)``.
///
/// The walk compares each pair of values once while descending, and skips subtrees that share storage. Objects are
/// matched by key; arrays by skipping the common prefix and suffix and pairing the remaining middle elements by
/// position.
///
/// Size guard: when the operations for a container are many (more than ``sizeGuardMinimumOperations``), include a
/// `remove` or `replace`, and would serialise larger than replacing the container outright, they are collapsed into
/// that single `replace`. Pure additions are never collapsed: they carry only new data, and appending `k` elements
/// must stay exactly `k` `add` operations.
struct JSONDiffer {
    /// Containers with at most this many generated operations keep them without a size comparison.
    static let sizeGuardMinimumOperations = 8

    /// The operations so far, valid to apply in order.
    private(set) var operations: [JSONPatchOperation] = []
    /// The decoded tokens of the location being compared.
    private var path: [String] = {
        // NB: room for a state's usual depth, so a diff does not regrow it (an allocation per command).
        var path: [String] = []
        path.reserveCapacity(8)
        return path
    }()
    /// The estimated serialised size of `path`.
    private var pathSize = 0
    /// The estimated serialised size of `operations`.
    private var operationsSize = 0
    /// How many of `operations` are not `add`.
    private var nonAdditions = 0

    /// Appends the operations turning `old` into `new` at the current path.
    mutating func diff(_ old: JSONValue, _ new: JSONValue) {
        switch (old, new) {
        case (.object(let oldObject), .object(let newObject)):
            // Unchanged subtrees of a state usually still share storage with the previous state: skip them in O(1).
            if oldObject.isIdentical(to: newObject) { return }
            let start = mark
            diffObjects(oldObject, newObject)
            collapseIfLarger(since: start) { new }
        case (.array(let oldArray), .array(let newArray)):
            if old.isIdentical(to: new) { return }
            let start = mark
            diffArrays(oldArray, newArray)
            collapseIfLarger(since: start) { new }
        default:
            if old != new { emitReplace(new) }
        }
    }

    /// Appends the operations for the root object's members named in `changes` (each with its old and new value),
    /// then applies the root's size guard with `whole`, the new root, built only when the guard needs it.
    ///
    /// The result is what ``diff(_:_:)`` gives for two objects with the same keys in the same order whose other
    /// members are equal, without building either object.
    mutating func diffRootMembers(
        _ changes: [(key: String, old: JSONValue, new: JSONValue)], whole: () -> JSONValue
    ) {
        let start = mark
        for change in changes {
            push(change.key)
            diff(change.old, change.new)
            pop()
        }
        collapseIfLarger(since: start, replacement: whole)
    }

    private mutating func diffObjects(_ old: JSONObject, _ new: JSONObject) {
        // Removals and changes in the old order, then additions in the new order; keys are independent, so any
        // order applies cleanly. Members are usually in the same positions, which avoids most lookups.
        for (position, member) in old.enumerated() {
            let newValue: JSONValue?
            if position < new.count, new[position].key == member.key {
                newValue = new[position].value
            } else {
                newValue = new[member.key]
            }
            push(member.key)
            if let newValue {
                diff(member.value, newValue)
            } else {
                emitRemove()
            }
            pop()
        }
        for (position, member) in new.enumerated() {
            if position < old.count, old[position].key == member.key { continue }
            if old.index(forKey: member.key) != nil { continue }
            push(member.key)
            emitAdd(member.value)
            pop()
        }
    }

    private mutating func diffArrays(_ old: [JSONValue], _ new: [JSONValue]) {
        var prefix = 0
        while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] {
            prefix += 1
        }
        var suffix = 0
        while suffix < old.count - prefix, suffix < new.count - prefix,
            old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
        {
            suffix += 1
        }
        let oldMiddle = old.count - prefix - suffix
        let newMiddle = new.count - prefix - suffix
        let paired = min(oldMiddle, newMiddle)
        for index in prefix..<(prefix + paired) {
            push(String(index))
            diff(old[index], new[index])
            pop()
        }
        if newMiddle > paired {
            // Ascending inserts: each lands after the previous one, ahead of the common suffix.
            for index in (prefix + paired)..<(prefix + newMiddle) {
                push(String(index))
                emitAdd(new[index])
                pop()
            }
        } else {
            // Descending removals keep the remaining indexes valid.
            for index in ((prefix + paired)..<(prefix + oldMiddle)).reversed() {
                push(String(index))
                emitRemove()
                pop()
            }
        }
    }

    // MARK: - Size guard

    /// The state of the output, to measure what a container generated.
    private typealias Mark = (count: Int, size: Int, nonAdditions: Int)

    private var mark: Mark { (operations.count, operationsSize, nonAdditions) }

    private mutating func collapseIfLarger(since start: Mark, replacement build: () -> JSONValue) {
        guard operations.count - start.count > Self.sizeGuardMinimumOperations,
            nonAdditions > start.nonAdditions
        else { return }
        let replacement = build()
        let generatedSize = operationsSize - start.size
        let overhead = Self.replaceOverhead + pathSize
        guard let valueSize = JSONSizeEstimator.size(of: replacement, limit: generatedSize - overhead - 1) else {
            return
        }
        operations.removeSubrange(start.count...)
        operationsSize = start.size
        nonAdditions = start.nonAdditions
        emit(.replace(path: pointer, value: replacement), size: overhead + valueSize)
    }

    // MARK: - Emitting

    /// `{"op":"add","path":"","value":}` plus a separating comma.
    private static let addOverhead = 32
    /// `{"op":"remove","path":""}` plus a separating comma.
    private static let removeOverhead = 26
    /// `{"op":"replace","path":"","value":}` plus a separating comma.
    private static let replaceOverhead = 36

    private var pointer: JSONPointer { JSONPointer(tokens: path) }

    private mutating func emitAdd(_ value: JSONValue) {
        emit(.add(path: pointer, value: value), size: Self.addOverhead + pathSize + valueSize(value))
    }

    private mutating func emitRemove() {
        emit(.remove(path: pointer), size: Self.removeOverhead + pathSize)
    }

    private mutating func emitReplace(_ value: JSONValue) {
        emit(.replace(path: pointer, value: value), size: Self.replaceOverhead + pathSize + valueSize(value))
    }

    private mutating func emit(_ operation: JSONPatchOperation, size: Int) {
        operations.append(operation)
        operationsSize += size
        if case .add = operation {} else { nonAdditions += 1 }
    }

    private func valueSize(_ value: JSONValue) -> Int {
        JSONSizeEstimator.size(of: value) ?? 0
    }

    private mutating func push(_ token: String) {
        path.append(token)
        pathSize += token.utf8.count + 1
    }

    private mutating func pop() {
        pathSize -= path.removeLast().utf8.count + 1
    }
}
