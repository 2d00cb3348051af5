import JSON
import Testing
import VMHostTesting

@Suite struct JSONObjectTests {
    @Test func subscriptSetsReplacesAndRemoves() {
        var object = JSONObject()
        #expect(object.isEmpty)
        object["b"] = 1
        object["a"] = 2
        object["c"] = 3
        #expect(object.keys == ["b", "a", "c"])
        object["a"] = "replaced"
        #expect(object.keys == ["b", "a", "c"])
        #expect(object["a"] == "replaced")
        object["a"] = nil
        #expect(object.keys == ["b", "c"])
        #expect(object.count == 2)
        #expect(!object.isEmpty)
        object["a"] = .null
        #expect(object.keys == ["b", "c", "a"])
        #expect(object["a"] == .some(.null))
        #expect(object["zzz"] == nil)
    }

    @Test func indexAndRemoval() {
        var object: JSONObject = ["x": 1, "y": 2, "z": 3]
        #expect(object.index(forKey: "y") == 1)
        #expect(object.index(forKey: "w") == nil)
        #expect(object.removeValue(forKey: "y") == 2)
        #expect(object.removeValue(forKey: "y") == nil)
        #expect(object.index(forKey: "z") == 1)
        #expect(object[1].key == "z")
    }

    @Test func iteratesInOrder() {
        let object = JSONObject([("one", 1), ("two", 2), ("three", 3), ("two", 22)])
        var seen: [String] = []
        var values: [JSONValue] = []
        for (key, value) in object {
            seen.append(key)
            values.append(value)
        }
        #expect(seen == ["one", "two", "three"])
        #expect(values == [1, 22, 3])
    }

    @Test func largeObjectsKeepIndexConsistent() {
        var object = JSONObject()
        var reference: [(String, Int)] = []
        var generator = SplitMix64(seed: 3)
        for step in 0..<3000 {
            let key = "k\(Int.random(in: 0..<60, using: &generator))"
            if Bool.random(using: &generator) || reference.count < 10 {
                object[key] = .int(step)
                if let position = reference.firstIndex(where: { $0.0 == key }) {
                    reference[position].1 = step
                } else {
                    reference.append((key, step))
                }
            } else {
                let removed = object.removeValue(forKey: key)
                let position = reference.firstIndex(where: { $0.0 == key })
                #expect(removed?.intValue == position.map { reference[$0].1 })
                if let position { reference.remove(at: position) }
            }
            if step % 50 == 0 {
                #expect(object.keys == reference.map(\.0))
                for (position, (key, value)) in reference.enumerated() {
                    #expect(object.index(forKey: key) == position)
                    #expect(object[key] == .int(value))
                }
            }
        }
    }
}
