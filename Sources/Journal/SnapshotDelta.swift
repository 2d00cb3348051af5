/// The part of a view model's snapshot text that changed since its checkpoint, as earlier releases wrote it to
/// the view model's delta key: `VERSION PREFIX SUFFIX MIDDLE` (the checkpoint's version, the byte counts kept from
/// its snapshot's start and end, the new snapshot's bytes between), which a reader splices into the checkpoint's
/// text. This release keeps the extras instead (``JournalRecordCoding/appendExtras(_:to:)``) and only reads
/// deltas, of records written before it.
enum SnapshotDelta {
    struct Corrupt: Error, CustomStringConvertible {
        var description: String
    }

    /// The snapshot text that `field` (a delta's text) makes of `base`, the text of the checkpoint at `version`.
    static func apply(_ field: [UInt8], to base: [UInt8], version: Int) throws(Corrupt) -> [UInt8] {
        var numbers: [Int] = []
        var start = 0
        while numbers.count < 3 {
            guard let space = field[start...].firstIndex(of: 0x20),
                let number = Int(String(decoding: field[start..<space], as: UTF8.self)), number >= 0
            else { throw Corrupt(description: "a snapshot delta without its header") }
            numbers.append(number)
            start = space + 1
        }
        guard numbers[0] == version else {
            throw Corrupt(description: "a snapshot delta of version \(numbers[0]) on the checkpoint of \(version)")
        }
        let prefix = numbers[1]
        let suffix = numbers[2]
        guard prefix <= base.count, suffix <= base.count - prefix else {
            throw Corrupt(description: "a snapshot delta beyond its checkpoint")
        }
        var text = Array(base[..<prefix])
        text.reserveCapacity(prefix + field.count - start + suffix)
        text.append(contentsOf: field[start...])
        text.append(contentsOf: base[(base.count - suffix)...])
        return text
    }
}
