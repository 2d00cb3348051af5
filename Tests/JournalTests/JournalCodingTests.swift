import Bytes
import JSON
import Redis
import Sessions
import Testing

@testable import Journal

/// The journal's encodings without Redis: compression, snapshot deltas, and a record rebuilt from a checkpoint
/// and the patches logged after it (this format and the earlier one).
@Suite("Journal: encoding and reconstruction")
struct JournalCodingTests {
    /// A JSON text of `count` photos, like a loaded search page (repetitive, as real states are).
    static func photos(_ count: Int, title: String = "kitten") -> String {
        let cells = (0..<count).map { index in
            #"{"id":"\#(1000 + index)","title":"\#(title) \#(index)","url":"https://live.staticflickr.com/65535/\#(index)_b.jpg"}"#
        }
        return "[" + cells.joined(separator: ",") + "]"
    }

    @Test func compressionRoundTripsAndShrinksJSON() throws {
        let compressor = JournalCompressor()
        for text in ["", "x", Self.photos(1), Self.photos(200)] {
            let input = Array(text.utf8)
            var output: [UInt8] = [0x7A]
            input.withUnsafeBytes { compressor.compress($0, appendingTo: &output) }
            #expect(output.first == 0x7A, "appends after what is there")
            #expect(try compressor.decompress(output[1...]) == input)
            if input.count > 1000 { #expect(output.count * 4 < input.count, "\(output.count) of \(input.count)") }
        }
        // Stored blocks (what the compressor falls back to) are valid raw deflate too.
        let input = Array(Self.photos(3).utf8)
        var stored: [UInt8] = []
        input.withUnsafeBytes { JournalCompressor.appendStored($0, to: &stored) }
        #expect(try compressor.decompress(stored[...]) == input)
    }

    @Test func corruptOrTruncatedDeflateIsAnErrorNotATrap() throws {
        let compressor = JournalCompressor()
        var output: [UInt8] = []
        Array(Self.photos(50).utf8).withUnsafeBytes { compressor.compress($0, appendingTo: &output) }
        #expect(throws: JournalCompressor.Failed.self) { try compressor.decompress(output.dropLast(8)) }
        #expect(throws: JournalCompressor.Failed.self) { try compressor.decompress([0xFF, 0xFF, 0xFF, 0x00][...]) }
        #expect(throws: JournalCompressor.Failed.self) { try compressor.decompress([][...]) }
        // The compressor is usable after a failure.
        #expect(try compressor.decompress(output[...]) == Array(Self.photos(50).utf8))
    }

    @Test func aDecompressionBombIsRefused() throws {
        let compressor = JournalCompressor()
        let zeros = [UInt8](repeating: 0x30, count: 2 << 20)
        var output: [UInt8] = []
        zeros.withUnsafeBytes { compressor.compress($0, appendingTo: &output) }
        #expect(output.count * 100 < zeros.count, "deflate packs a run ~200× at level 1")
        #expect(throws: JournalCompressor.Failed.self) { try compressor.decompress(output[...], limit: 1 << 20) }
        #expect(try compressor.decompress(output[...], limit: 2 << 20) == zeros, "at the limit is allowed")
    }

    /// `text` edited as `name` says.
    static func edit(_ name: String, _ text: String) -> String {
        switch name {
        case "edit in front": "X" + text.dropFirst()
        case "edit in the middle": String(text.prefix(3000)) + "puppy!" + text.dropFirst(3003)
        case "appended": text + photos(20, title: "more")
        case "shortened": String(text.dropLast(700))
        case "replaced": photos(3, title: "other")
        case "emptied": ""
        default: text
        }
    }

    @Test(arguments: [
        "edit in front", "edit in the middle", "appended", "shortened", "unchanged", "replaced", "emptied",
    ])
    func aSnapshotDeltaSplicesTheChangeIntoTheCheckpoint(name: String) throws {
        let base = Array(Self.photos(80).utf8)
        let changed = Array(Self.edit(name, Self.photos(80)).utf8)
        let mark = base.withUnsafeBufferPointer { SnapshotDelta.mark(version: 7, snapshot: $0) }
        let (prefix, suffix) = changed.withUnsafeBufferPointer { SnapshotDelta.common($0, mark) }
        #expect(prefix + suffix <= min(base.count, changed.count), "\(name)")
        var text = ByteWriter()
        let announced = changed.withUnsafeBufferPointer { snapshot in
            let delta = SnapshotDelta.Field(version: 7, prefix: prefix, suffix: suffix, snapshot: snapshot)
            delta.write(to: &text)
            return delta.byteCount
        }
        let field = text.bytes
        #expect(field.count == announced, "the length a write announces before the field")
        #expect(try SnapshotDelta.apply(field, to: base, version: 7) == changed, "\(name)")
        if name == "edit in the middle" || name == "unchanged" {
            #expect(field.count < 200, "\(name): only the change is written (\(field.count) bytes)")
        }
        // A delta of another checkpoint, or one that reaches beyond its checkpoint, is corrupt.
        #expect(throws: SnapshotDelta.Corrupt.self) { try SnapshotDelta.apply(field, to: base, version: 8) }
        #expect(throws: SnapshotDelta.Corrupt.self) {
            try SnapshotDelta.apply(Array("7 99999 0 x".utf8), to: base, version: 7)
        }
    }

    /// A state at `version` with `text` and `count` photos, as its JSON text.
    static func state(version: Int, text: String, count: Int) -> [UInt8] {
        Array(#"{"version":\#(version),"searchText":"\#(text)","photos":\#(photos(count))}"#.utf8)
    }

    @Test func aRecordIsItsCheckpointWithTheLoggedPatchesApplied() throws {
        let compressor = JournalCompressor()
        let snapshotV3 = Array(
            #"{"state":{"searchText":"ab","photos":\#(Self.photos(40))},"debouncePending":false}"#.utf8)
        let checkpoint = JournalRecordCoding.checkpoint(
            version: 3, stateBytes: Self.state(version: 3, text: "ab", count: 40), snapshot: snapshotV3,
            compressor: compressor)
        #expect(checkpoint.first == JournalRecordCoding.checkpointTag)
        // Versions 2 and 3 are in the ring only (before the checkpoint); 4 and 5 are the log after it.
        let patches: [(Int, String)] = [
            (2, #"[{"op":"replace","path":"/version","value":2}]"#),
            (3, #"[{"op":"replace","path":"/version","value":3}]"#),
            (4, #"[{"op":"replace","path":"/version","value":4},{"op":"replace","path":"/searchText","value":"abc"}]"#),
            (
                5,
                #"[{"op":"replace","path":"/version","value":5},{"op":"replace","path":"/photos","value":\#(Self.photos(30, title: "cat"))}]"#
            ),
        ]
        var list: [RedisReply] = []
        for (version, patch) in patches {
            var text = ByteWriter()
            JournalRecordCoding.writeReplayEntry(
                version: version, patch: Array(patch.utf8), compressor: compressor, into: &text)
            let entry = text.bytes
            if patch.utf8.count >= JournalRecordCoding.compressedPatchBytes {
                #expect(entry.count < patch.utf8.count / 2, "a large patch is stored compressed")
            }
            list.append(.bulk(entry))
        }
        let snapshotV5 = Array(
            #"{"state":{"searchText":"abc","photos":\#(Self.photos(30, title: "cat"))},"debouncePending":false}"#.utf8)
        let markV3 = snapshotV3.withUnsafeBufferPointer { SnapshotDelta.mark(version: 3, snapshot: $0) }
        let (prefix, suffix) = snapshotV5.withUnsafeBufferPointer { SnapshotDelta.common($0, markV3) }
        var deltaText = ByteWriter()
        snapshotV5.withUnsafeBufferPointer {
            SnapshotDelta.Field(version: 3, prefix: prefix, suffix: suffix, snapshot: $0).write(to: &deltaText)
        }
        let delta = deltaText.bytes

        let hash: [RedisReply] = [
            .bulk(Array("owner".utf8)), .bulk(Array("a/1".utf8)), .bulk(Array("e".utf8)), .bulk(Array("7".utf8)),
            .bulk(Array("vm:search".utf8)), .bulk(checkpoint),
        ]
        // The reply: the hash, the key order, the keys, then each view model's list, then each one's delta.
        let reply = RedisReply.array([.array(hash), .array([]), .array([]), .array(list), .bulk(delta)])
        let record = try JournalRecordCoding.record(
            id: "id", reply: reply, viewModelNames: ["search"], compressor: compressor)
        #expect(record.journalEpoch == 7)
        let search = try #require(record.viewModels["search"])
        #expect(search.version == 5)
        #expect(search.state == (try JSONParser.parse(Self.state(version: 5, text: "abc", count: 0)).withPhotos(30)))
        #expect(search.snapshot == (try JSONParser.parse(snapshotV5)))
        #expect(search.replay.map(\.version) == [2, 3, 4, 5])
        #expect(search.replay.last.map { String(decoding: $0.patch, as: UTF8.self) } == patches.last?.1)

        // A checkpoint of the releases before (`y` with epochs, `z` before them; the same encoding) reads the same.
        for tag in JournalRecordCoding.earlierCheckpointTags {
            var earlierHash = hash
            earlierHash[5] = .bulk([tag] + checkpoint.dropFirst())
            let earlier = try JournalRecordCoding.record(
                id: "id", reply: .array([.array(earlierHash), .array([]), .array([]), .array(list), .bulk(delta)]),
                viewModelNames: ["search"], compressor: compressor)
            #expect(earlier.viewModels["search"]?.state == search.state)
            #expect(earlier.viewModels["search"]?.snapshot == search.snapshot)
        }

        // The newest entries in the delta key with the delta (`p`): the list and they are one log.
        var entries = RedisArguments()
        for element in list[2...] { entries.append(element.bytes ?? []) }
        let encoded = entries.withEncoded { Array($0) }
        var argument = RedisArguments()
        snapshotV5.withUnsafeBufferPointer { snapshot in
            let delta = SnapshotDelta.Field(version: 3, prefix: prefix, suffix: suffix, snapshot: snapshot)
            JournalRecordCoding.appendDeltaKeyValue(pending: encoded, count: 2, delta: delta, to: &argument)
        }
        let value = try Self.bulk(argument)
        #expect(value.first == JournalRecordCoding.pendingEntriesTag)
        let split = try JournalRecordCoding.record(
            id: "id",
            reply: .array([.array(hash), .array([]), .array([]), .array(Array(list[..<2])), .bulk(value)]),
            viewModelNames: ["search"], compressor: compressor)
        #expect(split.viewModels["search"]?.state == search.state)
        #expect(split.viewModels["search"]?.snapshot == search.snapshot)
        #expect(split.viewModels["search"]?.replay.map(\.version) == [2, 3, 4, 5])
        // Written without entries, the value is the delta alone (as the release before wrote it).
        var alone = RedisArguments()
        snapshotV5.withUnsafeBufferPointer { snapshot in
            let field = SnapshotDelta.Field(version: 3, prefix: prefix, suffix: suffix, snapshot: snapshot)
            JournalRecordCoding.appendDeltaKeyValue(pending: [], count: 0, delta: field, to: &alone)
        }
        #expect(try Self.bulk(alone) == delta)

        // Without its delta (empty: none since the checkpoint) the snapshot is the checkpoint's.
        let noDelta = try JournalRecordCoding.record(
            id: "id", reply: .array([.array(hash), .array([]), .array([]), .array(list), .bulk([])]),
            viewModelNames: ["search"], compressor: compressor)
        #expect(noDelta.viewModels["search"]?.snapshot == (try JSONParser.parse(snapshotV3)))

        // A reply without the epoch, or with one that is not a positive integer, is corrupt.
        for epoch: [RedisReply] in [
            [], [.bulk(Array("e".utf8)), .bulk(Array("0".utf8))], [.bulk(Array("e".utf8)), .bulk(Array("x".utf8))],
        ] {
            let wrong = Array(hash[0..<2]) + epoch + Array(hash[4...])
            #expect(throws: JournalRecordCoding.Corrupt.self) {
                try JournalRecordCoding.record(
                    id: "id", reply: .array([.array(wrong), .array([]), .array([]), .array(list), .bulk(delta)]),
                    viewModelNames: ["search"], compressor: compressor)
            }
        }

        // A log with a hole is corrupt: the state of version 5 cannot be rebuilt.
        let holed = RedisReply.array([
            .array(hash), .array([]), .array([]), .array([list[0], list[1], list[3]]), .bulk(delta),
        ])
        #expect(throws: JournalRecordCoding.Corrupt.self) {
            try JournalRecordCoding.record(id: "id", reply: holed, viewModelNames: ["search"], compressor: compressor)
        }
    }

    /// The one argument `arguments` holds, decoded from its Redis bulk string.
    static func bulk(_ arguments: borrowing RedisArguments) throws -> [UInt8] {
        let encoded = arguments.withEncoded { Array($0) }
        let line = try #require(encoded.firstIndex(of: 0x0A))
        return Array(encoded[(line + 1)..<(encoded.count - 2)])
    }

    /// A delta key's value with entries (`p`, their count, the entries as Redis bulk strings, then the delta)
    /// reads back; a wrong or cut header is an error, not a trap.
    @Test func aDeltaKeysValueHoldsTheNewestEntriesAndTheDelta() throws {
        let compressor = JournalCompressor()
        var entries = RedisArguments()
        let large = Array(#"[{"op":"replace","path":"/photos","value":\#(Self.photos(20))}]"#.utf8)
        #expect(large.count >= JournalRecordCoding.compressedPatchBytes)
        JournalRecordCoding.appendReplayEntry(
            version: 8, patch: Array(#"[{"op":"replace","path":"/searchText","value":"$1\r\n"}]"#.utf8),
            compressor: compressor, to: &entries)
        JournalRecordCoding.appendReplayEntry(version: 9, patch: large, compressor: compressor, to: &entries)
        let encoded = entries.withEncoded { Array($0) }
        let snapshot = Array(#"{"state":{"searchText":"$1\r\n"},"debouncePending":true}"#.utf8)
        var argument = RedisArguments()
        snapshot.withUnsafeBufferPointer { snapshot in
            let field = SnapshotDelta.Field(version: 7, prefix: 0, suffix: 0, snapshot: snapshot)
            JournalRecordCoding.appendDeltaKeyValue(pending: encoded, count: 2, delta: field, to: &argument)
        }
        let value = try Self.bulk(argument)
        let (read, delta) = try JournalRecordCoding.deltaKeyValue(value, compressor: compressor)
        #expect(read.map(\.version) == [8, 9])
        #expect(read.last?.patch == large, "a compressed entry inflates")
        #expect(delta == Array("7 0 0 ".utf8) + snapshot)
        let (none, noDelta) = try JournalRecordCoding.deltaKeyValue([], compressor: compressor)
        #expect(none.isEmpty && noDelta == nil)
        for wrong in [
            "p", "p2 ", "px $1\r\na\r\n", "p1 $9\r\nab\r\n", "p1 $2\r\nab", "p1 2\r\nab\r\n", "p1 $2\rxab\r\n",
        ] {
            #expect(throws: JournalRecordCoding.Corrupt.self, "\(wrong)") {
                try JournalRecordCoding.deltaKeyValue(Array(wrong.utf8), compressor: compressor)
            }
        }
        for cut in 1..<value.count {
            // Every prefix is either an error or, cut inside the delta, fewer delta bytes: never a trap.
            _ = try? JournalRecordCoding.deltaKeyValue(Array(value[..<cut]), compressor: compressor)
        }
    }

    @Test func aSmallCheckpointIsStoredUncompressedAndReads() throws {
        let compressor = JournalCompressor()
        let state = Self.state(version: 2, text: "a", count: 1)
        let snapshot = Array(#"{"state":{"searchText":"a"},"debouncePending":false}"#.utf8)
        let checkpoint = JournalRecordCoding.checkpoint(
            version: 2, stateBytes: state, snapshot: snapshot, compressor: compressor)
        #expect(checkpoint.count > state.count + snapshot.count, "stored: no deflate below 1 KiB")
        let model = try JournalRecordCoding.viewModel(
            name: "search", entry: checkpoint, delta: nil, replay: [], compressor: compressor)
        #expect(model.version == 2)
        #expect(model.state == (try JSONParser.parse(state)))
        #expect(model.snapshot == (try JSONParser.parse(snapshot)))
    }

    @Test func aLargeIdempotencyAnswerIsStoredCompressedAndReadsBack() throws {
        let compressor = JournalCompressor()
        for body in [#"{"version":3}"#, Self.photos(60)] {
            let answer = IdempotentAnswer(
                status: 200, headers: [IdempotentAnswer.Header("Content-Type", "application/json")],
                body: Array(body.utf8))
            let fingerprint: [UInt8] = [0x00, 0x0F, 0xA0, 0xFF]
            let plain = JournalRecordCoding.answer(
                fingerprint: fingerprint, answer: answer, compressing: false, compressor: compressor)
            #expect(plain.first == UInt8(ascii: "a"), "a command's own write stores it framed, uncompressed")
            #expect(plain.count < body.utf8.count + 64, "the body as it is, not escaped")
            let stored = JournalRecordCoding.answer(
                fingerprint: fingerprint, answer: answer, compressing: true, compressor: compressor)
            let large = body.utf8.count >= JournalRecordCoding.compressedAnswerBytes
            #expect((stored.first == JournalRecordCoding.compressedAnswerTag) == large)
            #expect(try JournalRecordCoding.answer(plain, compressor: compressor).1.body == answer.body)
            if large { #expect(stored.count * 4 < body.utf8.count, "\(stored.count) of \(body.utf8.count)") }
            let (readFingerprint, read) = try JournalRecordCoding.answer(stored, compressor: compressor)
            #expect(readFingerprint == fingerprint)
            #expect(read.status == 200 && read.body == answer.body)
            #expect(read.headers.map(\.name) == ["Content-Type"] && read.headers.map(\.value) == ["application/json"])
        }
        // The earlier layout (JSON) still reads.
        let earlier = #"{"fingerprint":"00ff","status":201,"headers":[["Location","/x"]],"body":"{\"a\":1}"}"#
        let (earlierFingerprint, earlierAnswer) = try JournalRecordCoding.answer(
            Array(earlier.utf8), compressor: compressor)
        #expect(earlierFingerprint == [0x00, 0xFF])
        #expect(earlierAnswer.status == 201 && earlierAnswer.body == Array(#"{"a":1}"#.utf8))
        #expect(earlierAnswer.headers.first?.value == "/x")
        for corrupt in ["z\u{1}\u{2}", "a4 200 0 ab", "a2 999 0 ab", "a2 200 1 5 5 ab", "a2 200 99999 "] {
            #expect(throws: JournalRecordCoding.Corrupt.self, "\(corrupt)") {
                try JournalRecordCoding.answer(Array(corrupt.utf8), compressor: compressor)
            }
        }
    }

    @Test func aRecordOfTheEarlierFormatLoads() throws {
        // Written by releases before checkpoints: the whole entry as JSON, plain patches in the ring.
        let state = String(decoding: Self.state(version: 9, text: "old", count: 5), as: UTF8.self)
        let entry = #"{"version":9,"state":\#(state),"snapshot":{"state":{"searchText":"old"},"debouncePending":true}}"#
        let patch =
            #"[{"op":"replace","path":"/version","value":9},{"op":"replace","path":"/searchText","value":"old"}]"#
        let reply = RedisReply.array([
            .array([
                .bulk(Array("owner".utf8)), .bulk(Array("".utf8)), .bulk(Array("vm:search".utf8)),
                .bulk(Array(entry.utf8)), .bulk(Array("e".utf8)), .bulk(Array("1".utf8)),
            ]),
            .array([]), .array([]), .array([.bulk(Array("9 \(patch)".utf8))]), .bulk([]),
        ])
        let record = try JournalRecordCoding.record(
            id: "id", reply: reply, viewModelNames: ["search"], compressor: JournalCompressor())
        let search = try #require(record.viewModels["search"])
        #expect(search.version == 9)
        #expect(search.state == (try JSONParser.parse(state)))
        #expect(search.snapshot["debouncePending"] == true)
        #expect(search.replay.map(\.version) == [9])
    }

    @Test func aCorruptCheckpointIsAnError() {
        let compressor = JournalCompressor()
        for entry: [UInt8] in [[0x7A], [0x7A, 1, 2, 3], [0x79], [0x79, 1, 2, 3], Array("{\"version\":1}".utf8)] {
            let reply = RedisReply.array([
                .array([.bulk(Array("e".utf8)), .bulk(Array("1".utf8)), .bulk(Array("vm:search".utf8)), .bulk(entry)]),
                .array([]), .array([]), .array([]), .bulk([]),
            ])
            #expect(throws: JournalRecordCoding.Corrupt.self) {
                try JournalRecordCoding.record(
                    id: "id", reply: reply, viewModelNames: ["search"], compressor: compressor)
            }
        }
        // A checkpoint whose header promises more state than there is.
        var lying: [UInt8] = [JournalRecordCoding.checkpointTag]
        Array("1 999 {}".utf8).withUnsafeBytes { compressor.compress($0, appendingTo: &lying) }
        let reply = RedisReply.array([
            .array([.bulk(Array("e".utf8)), .bulk(Array("1".utf8)), .bulk(Array("vm:search".utf8)), .bulk(lying)]),
            .array([]), .array([]), .array([]), .bulk([]),
        ])
        #expect(throws: JournalRecordCoding.Corrupt.self) {
            try JournalRecordCoding.record(id: "id", reply: reply, viewModelNames: ["search"], compressor: compressor)
        }
    }
}

extension JSONValue {
    /// This object with `photos` set to `count` photos titled `cat` (``JournalCodingTests/photos(_:title:)``).
    fileprivate func withPhotos(_ count: Int) throws -> JSONValue {
        guard var fields = objectValue else { return self }
        fields["photos"] = try JSONParser.parse(JournalCodingTests.photos(count, title: "cat"))
        return .object(fields)
    }
}

extension JournalCodingTests {
    /// A write's keys: the hash, key order and keys encoded once per session; a write without answers sends the
    /// hash alone, cut from them.
    @Test(arguments: ["QUJDREVGR0hJSktMTU5PUFFS", String(repeating: Character("d"), count: 120)])
    func theHashAloneIsCutFromTheSessionsEncodedKeys(_ digest: String) {
        let keys = JournalKeys(digest: digest)
        let encoded = JournalKeys.encodedWriteKeys(of: digest)
        var three = RedisCommand(capacity: 256)
        for key in [keys.hash, keys.keyOrder, keys.keys] { three.append(key) }
        #expect(encoded == three.encodedArguments)
        var one = RedisCommand(capacity: 256)
        one.append(keys.hash)
        var two = RedisCommand(capacity: 256)
        for key in [keys.keyOrder, keys.keys] { two.append(key) }
        let split = JournalKeys.splitFirst(encoded)
        #expect(Array(split.first) == one.encodedArguments)
        #expect(Array(split.rest) == two.encodedArguments)
        #expect(String(decoding: split.first, as: UTF8.self) == "$\(keys.hash.utf8.count)\r\n\(keys.hash)\r\n")
    }

    /// A view model's keys under an epoch: its list and its delta, named by the epoch, encoded once and split for
    /// the fast path's two commands.
    @Test(arguments: [1, 12, 1_000_000])
    func aViewModelsKeysAreNamedByTheEpoch(_ epoch: Int) {
        let digest = "QUJDREVGR0hJSktMTU5PUFFS"
        let keys = JournalKeys(digest: digest)
        #expect(keys.replay("search", epoch: epoch) == "vmhost:{\(digest)}:r:search:\(epoch)")
        #expect(keys.delta("search", epoch: epoch) == "vmhost:{\(digest)}:d:search:\(epoch)")
        #expect(keys.replay("search") == "vmhost:{\(digest)}:r:search")
        let split = JournalKeys.splitFirst(
            JournalKeys.encodedViewModelKeys(of: digest, viewModel: "search", epoch: epoch))
        var ring = RedisCommand(capacity: 64)
        ring.append(keys.replay("search", epoch: epoch))
        var delta = RedisCommand(capacity: 64)
        delta.append(keys.delta("search", epoch: epoch))
        #expect(Array(split.first) == ring.encodedArguments)
        #expect(Array(split.rest) == delta.encodedArguments)
        #expect(
            keys.all(viewModels: ["search", "products"], epoch: epoch) == [
                keys.hash, keys.keyOrder, keys.keys, keys.replay("search", epoch: epoch),
                keys.replay("products", epoch: epoch), keys.delta("search", epoch: epoch),
                keys.delta("products", epoch: epoch),
            ])
    }
}
