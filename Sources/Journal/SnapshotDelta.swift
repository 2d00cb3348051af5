import Bytes
import JSON
import Sessions

/// The part of a view model's snapshot text that changed since its checkpoint: the bytes between the longest
/// common prefix and suffix, found by comparing fixed-size blocks against the fingerprints of the checkpoint's
/// blocks (``JournalMark``), so the writer keeps no copy of the checkpoint's text.
///
/// A command typically changes a few fields of a snapshot that holds the whole typed state (a search's text in
/// front of its photos): the journal writes `VERSION PREFIX SUFFIX MIDDLE` (the checkpoint's version, the byte
/// counts kept from its start and end, the bytes between) to the view model's delta key
/// (``JournalRecordCoding/appendDeltaKeyValue(pending:count:delta:to:)``) instead of the whole snapshot, and a
/// reader splices it into the checkpoint's text.
///
/// NB: block fingerprints are 64-bit, keyed by a random seed per process: a collision (which would splice
/// a wrong block in) needs a chosen text against an unknown seed, and only the session's own client chooses it.
enum SnapshotDelta {
    struct Corrupt: Error, CustomStringConvertible {
        var description: String
    }

    /// Bytes per block: the granularity of the common prefix and suffix.
    static let blockSize = 64
    private static let seed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next() | 1
    }()

    /// The mark of a checkpoint at `version` whose snapshot text is `snapshot`.
    static func mark(version: Int, snapshot: UnsafeBufferPointer<UInt8>) -> JournalMark {
        let count = snapshot.count
        let blocks = count / blockSize
        var leading: [UInt64] = []
        var trailing: [UInt64] = []
        leading.reserveCapacity(blocks)
        trailing.reserveCapacity(blocks)
        let text = UnsafeRawBufferPointer(snapshot)
        for block in 0..<blocks {
            leading.append(fingerprint(text, at: block * blockSize))
            trailing.append(fingerprint(text, at: count - (block + 1) * blockSize))
        }
        return JournalMark(version: version, snapshotLength: count, leadingBlocks: leading, trailingBlocks: trailing)
    }

    /// The byte counts of `snapshot` that equal the start and the end of the text `mark` was taken of (block
    /// multiples, never overlapping).
    static func common(_ snapshot: UnsafeBufferPointer<UInt8>, _ mark: JournalMark) -> (prefix: Int, suffix: Int) {
        let count = snapshot.count
        let shared = min(count, mark.snapshotLength) / blockSize
        let text = UnsafeRawBufferPointer(snapshot)
        var prefix = 0
        while prefix < shared, fingerprint(text, at: prefix * blockSize) == mark.leadingBlocks[prefix] {
            prefix += 1
        }
        var suffix = 0
        while prefix + suffix < shared,
            fingerprint(text, at: count - (suffix + 1) * blockSize) == mark.trailingBlocks[suffix]
        {
            suffix += 1
        }
        return (prefix * blockSize, suffix * blockSize)
    }

    /// A delta as a write sends it, `VERSION PREFIX SUFFIX MIDDLE`: the checkpoint's version, the byte counts kept
    /// from its snapshot's start and end, and the new snapshot's bytes between. NB: it points into the snapshot
    /// text being written (no copy of it); use it while that lives.
    struct Field {
        let version: Int
        let prefix: Int
        let suffix: Int
        let snapshot: UnsafeBufferPointer<UInt8>

        /// The bytes ``write(to:)`` writes (announced before them).
        var byteCount: Int {
            DecimalDigits.count(of: version) + DecimalDigits.count(of: prefix) + DecimalDigits.count(of: suffix) + 3
                + (snapshot.count - prefix - suffix)
        }

        /// Writes the field.
        func write(to text: inout ByteWriter) {
            text.putDecimal(version)
            text.put(0x20)
            text.putDecimal(prefix)
            text.put(0x20)
            text.putDecimal(suffix)
            text.put(0x20)
            text.put(UnsafeBufferPointer(rebasing: snapshot[prefix..<(snapshot.count - suffix)]))
        }
    }

    /// The snapshot text that `field` (a ``Field``'s text) makes of `base`, the
    /// text of the checkpoint at `version`.
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

    /// The fingerprint of the block of `text` at `offset` (``blockSize`` bytes, which must be there).
    private static func fingerprint(_ text: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        var hash = seed
        for word in 0..<(blockSize / 8) {
            hash =
                (hash ^ text.loadUnaligned(fromByteOffset: offset + word * 8, as: UInt64.self))
                &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 29
        }
        return hash
    }
}
