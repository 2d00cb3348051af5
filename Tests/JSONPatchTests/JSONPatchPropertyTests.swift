import JSON
import JSONPatch
import Testing
import VMHostTesting

/// Random documents and random edits: the diff must always apply back to the target, and survive serialisation.
@Suite struct JSONPatchPropertyTests {
    /// Checks `apply(diff(old, new), old) == new`, the op kinds, and the serialise/parse round trip of the patch.
    private func check(_ old: JSONValue, _ new: JSONValue, _ context: String) throws {
        let operations = JSONPatch.diff(from: old, to: new)
        do {
            let applied = try JSONPatch.apply(operations, to: old)
            #expect(applied == new, "\(context): \(old) → \(new) via \(serialized(operations))")
        } catch {
            Issue.record("\(context): \(error) applying \(serialized(operations)) to \(old)")
        }
        if old == new {
            #expect(operations.isEmpty, "\(context)")
        }
        for operation in operations {
            switch operation {
            case .add, .remove, .replace: continue
            case .move, .copy, .test: Issue.record("\(context): unexpected \(operation.name)")
            }
        }
        var buffer: [UInt8] = []
        JSONPatch.serialize(operations, into: &buffer)
        let reparsed = try JSONPatch.parse(JSONParser.parse(buffer))
        #expect(reparsed == operations, "\(context)")
    }

    @Test func diffOfEditedDocumentsApplies() async throws {
        var random = RandomDocuments(seed: 0x5EED_0001)
        for iteration in 0..<2500 {
            await sharePool(every: 50, at: iteration)
            let old = random.document()
            let new = random.mutated(old)
            try check(old, new, "edited #\(iteration)")
            try check(new, old, "reverted #\(iteration)")
        }
    }

    @Test func diffOfUnrelatedDocumentsApplies() async throws {
        var random = RandomDocuments(seed: 0x5EED_0002)
        for iteration in 0..<2000 {
            await sharePool(every: 50, at: iteration)
            let old = random.document()
            let new = random.document()
            try check(old, new, "unrelated #\(iteration)")
        }
    }

    /// A view model's state diffs only the members it changed: the result is the whole objects' diff, the root's
    /// size guard included (many changed members collapse into one replacement of the document).
    @Test func diffOfChangedMembersIsTheDiffOfTheObjects() async throws {
        var random = RandomDocuments(seed: 0x5EED_0004)
        var collapsed = 0
        for iteration in 0..<2000 {
            await sharePool(every: 50, at: iteration)
            var old = JSONObject()
            var new = JSONObject()
            var changes: [(key: String, old: JSONValue, new: JSONValue)] = []
            for index in 0..<random.int(1...14) {
                let value = random.document(depth: 2)
                let edited = random.chance(50) ? random.mutated(value) : value
                old["m\(index)"] = value
                new["m\(index)"] = edited
                if edited != value { changes.append(("m\(index)", value, edited)) }
            }
            var built = 0
            let operations = JSONPatch.diff(changedMembers: changes) {
                built += 1
                return .object(new)
            }
            let expected = JSONPatch.diff(from: .object(old), to: .object(new))
            #expect(operations == expected, "#\(iteration)")
            if case .replace(let path, _) = expected.first, path.tokens.isEmpty {
                collapsed += 1
                #expect(built == 1)
            }
            try check(.object(old), .object(new), "members #\(iteration)")
        }
        // The size guard at the root was exercised.
        #expect(collapsed > 0)
    }

    @Test func diffOfEqualDocumentsIsEmpty() throws {
        var random = RandomDocuments(seed: 0x5EED_0003)
        for _ in 0..<500 {
            let document = random.document()
            #expect(JSONPatch.diff(from: document, to: document).isEmpty)
            let reparsed = try JSONParser.parse(document.serializedBytes)
            #expect(JSONPatch.diff(from: document, to: reparsed).isEmpty)
        }
    }

    @Test func splitMixIsDeterministic() {
        var first = SplitMix64(seed: 1)
        var second = SplitMix64(seed: 1)
        let a = (0..<5).map { _ in first.next() }
        let b = (0..<5).map { _ in second.next() }
        #expect(a == b)
        #expect(Set(a).count == 5)
    }
}
