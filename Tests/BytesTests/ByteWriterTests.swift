import Bytes
import Testing

@Suite struct ByteWriterTests {
    @Test func piecesOfEveryKindLandInOrderAcrossGrowth() {
        var writer = ByteWriter(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<200 {
            writer.put(UInt8(truncatingIfNeeded: round))
            expected.append(UInt8(truncatingIfNeeded: round))
            writer.put("ab")
            expected += Array("ab".utf8)
            let long = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: round % 40)
            writer.put(long)
            expected += long
            writer.put(long[(long.count / 2)...])
            expected += long[(long.count / 2)...]
            writer.put(utf8: "é\(round)")
            expected += Array("é\(round)".utf8)
        }
        #expect(writer.count == expected.count)
        #expect(writer.bytes == expected)
        #expect(writer.withBytes { Array($0) } == expected)
    }

    @Test(arguments: [0, 7, 9, 10, 99, 100, -1, -10, 1_234_567, Int.max, Int.min])
    func decimalsAreTheirDescriptionAndTheirCountIsKnownFirst(value: Int) {
        var writer = ByteWriter(capacity: 1)
        writer.putDecimal(value)
        #expect(writer.bytes == Array(String(value).utf8))
        #expect(DecimalDigits.count(of: value) == String(value).utf8.count)
    }

    @Test func removeAllAndTruncateKeepTheBufferAndDropTheTail() {
        var writer = ByteWriter()
        writer.put("hello, world")
        writer.truncate(to: 5)
        #expect(writer.bytes == Array("hello".utf8))
        writer.truncate(to: 99)
        #expect(writer.bytes == Array("hello".utf8), "beyond what was written: nothing dropped")
        writer.put("!")
        #expect(writer.bytes == Array("hello!".utf8))
        writer.removeAll()
        #expect(writer.count == 0 && writer.bytes.isEmpty)
        writer.put("again")
        #expect(writer.bytes == Array("again".utf8))
    }
}
