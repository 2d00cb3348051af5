import Bytes
import JSON
import Redis
import Sessions
import Testing

@testable import Journal

/// The journal's encodings without Redis: compression, extras, earlier releases' snapshot deltas, and a record
/// rebuilt from a checkpoint and the patches logged after it (this format and the earlier ones).
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

    /// The delta of `changed` against `base` (the checkpoint at `version`) as earlier releases wrote it:
    /// `VERSION PREFIX SUFFIX MIDDLE`, the byte counts the two share at their start and end, then the bytes between.
    static func delta(from base: [UInt8], to changed: [UInt8], version: Int) -> [UInt8] {
        var prefix = 0
        while prefix < min(base.count, changed.count), base[prefix] == changed[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < min(base.count, changed.count) - prefix,
            base[base.count - 1 - suffix] == changed[changed.count - 1 - suffix]
        {
            suffix += 1
        }
        return Array("\(version) \(prefix) \(suffix) ".utf8) + changed[prefix..<(changed.count - suffix)]
    }

    /// A delta key's value as the release before this one wrote it with patches: `p`, their count, a space, the
    /// entries as Redis bulk strings, then the delta.
    static func pendingValue(entries: [[UInt8]], delta: [UInt8]) -> [UInt8] {
        var value = Array("p\(entries.count) ".utf8)
        for entry in entries { value += Array("$\(entry.count)\r\n".utf8) + entry + Array("\r\n".utf8) }
        return value + delta
    }

    @Test(arguments: [
        "edit in front", "edit in the middle", "appended", "shortened", "unchanged", "replaced", "emptied",
    ])
    func aSnapshotDeltaOfAnEarlierReleaseSplicesTheChangeIntoTheCheckpoint(name: String) throws {
        let base = Array(Self.photos(80).utf8)
        let changed = Array(Self.edit(name, Self.photos(80)).utf8)
        let field = Self.delta(from: base, to: changed, version: 7)
        #expect(try SnapshotDelta.apply(field, to: base, version: 7) == changed, "\(name)")
        // A delta of another checkpoint, or one that reaches beyond its checkpoint, is corrupt.
        #expect(throws: SnapshotDelta.Corrupt.self) { try SnapshotDelta.apply(field, to: base, version: 8) }
        #expect(throws: SnapshotDelta.Corrupt.self) {
            try SnapshotDelta.apply(Array("7 99999 0 x".utf8), to: base, version: 7)
        }
        #expect(throws: SnapshotDelta.Corrupt.self) { try SnapshotDelta.apply(Array("7 0".utf8), to: base, version: 7) }
    }

    /// A state at `version` with `text` and `count` photos, as its JSON text.
    static func state(version: Int, text: String, count: Int) -> [UInt8] {
        Array(#"{"version":\#(version),"searchText":"\#(text)","photos":\#(photos(count))}"#.utf8)
    }

    /// The log of patches 2 to 5 (2 and 3 in the ring only, before a checkpoint at 3; 4 and 5 after it), as
    /// list entries, with the patches' texts.
    static func log(compressor: JournalCompressor) -> (list: [RedisReply], patches: [(Int, String)]) {
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
            list.append(.bulk(text.bytes))
        }
        return (list, patches)
    }

    /// The takeover script's reply for one view model, `search`: the hash (owner, epoch 7, the checkpoint), no
    /// idempotency keys, its list, its delta key's value.
    static func reply(
        checkpoint: [UInt8], list: [RedisReply], deltaKey: [UInt8], epoch: [RedisReply]? = nil
    )
        -> RedisReply
    {
        let hash: [RedisReply] =
            [.bulk(Array("owner".utf8)), .bulk(Array("a/1".utf8))]
            + (epoch ?? [.bulk(Array("e".utf8)), .bulk(Array("7".utf8))])
            + [.bulk(Array("vm:search".utf8)), .bulk(checkpoint)]
        return .array([.array(hash), .array([]), .array([]), .array(list), .bulk(deltaKey)])
    }

    @Test func aRecordIsItsCheckpointWithTheLoggedPatchesApplied() throws {
        let compressor = JournalCompressor()
        let extrasV3 = Array(
            #"{"results":{"hasValue":false,"error":null,"status":"idle"},"debouncePending":false}"#.utf8)
        let checkpoint = JournalRecordCoding.checkpoint(
            version: 3, stateBytes: Self.state(version: 3, text: "ab", count: 40), rest: extrasV3,
            compressor: compressor)
        #expect(checkpoint.first == JournalRecordCoding.checkpointTag)
        let (list, patches) = Self.log(compressor: compressor)
        for (entry, (_, patch)) in zip(list, patches) where patch.utf8.count >= JournalRecordCoding.compressedPatchBytes
        {
            #expect((entry.bytes?.count ?? .max) < patch.utf8.count / 2, "a large patch is stored compressed")
        }
        let extrasV5 = Array(
            #"{"results":{"hasValue":false,"error":null,"status":"idle"},"debouncePending":true}"#.utf8)
        var argument = RedisArguments()
        JournalRecordCoding.appendExtras(extrasV5, to: &argument)
        let extras = try Self.bulk(argument)
        #expect(extras.first == JournalRecordCoding.extrasTag)

        let record = try JournalRecordCoding.record(
            id: "id", reply: Self.reply(checkpoint: checkpoint, list: list, deltaKey: extras),
            viewModelNames: ["search"], compressor: compressor)
        #expect(record.journalEpoch == 7)
        let search = try #require(record.viewModels["search"])
        #expect(search.version == 5)
        #expect(search.state == (try JSONParser.parse(Self.state(version: 5, text: "abc", count: 0)).withPhotos(30)))
        #expect(search.continuation == .extras(try JSONParser.parse(extrasV5)), "the extras of the delta key")
        #expect(search.replay.map(\.version) == [2, 3, 4, 5])
        #expect(search.replay.last.map { String(decoding: $0.patch, as: UTF8.self) } == patches.last?.1)

        // Without a delta key (the extras unchanged since the checkpoint), the checkpoint's extras.
        let unchanged = try JournalRecordCoding.record(
            id: "id", reply: Self.reply(checkpoint: checkpoint, list: list, deltaKey: []),
            viewModelNames: ["search"], compressor: compressor)
        #expect(unchanged.viewModels["search"]?.state == search.state)
        #expect(unchanged.viewModels["search"]?.continuation == .extras(try JSONParser.parse(extrasV3)))

        // An earlier release's delta key beside this release's checkpoint, or extras that are not JSON: corrupt.
        for wrong in [
            Array("3 0 0 {}".utf8), Self.pendingValue(entries: [], delta: Array("3 0 0 {}".utf8)), Array("e{".utf8),
        ] {
            #expect(throws: JournalRecordCoding.Corrupt.self) {
                try JournalRecordCoding.record(
                    id: "id", reply: Self.reply(checkpoint: checkpoint, list: list, deltaKey: wrong),
                    viewModelNames: ["search"], compressor: compressor)
            }
        }

        // A reply without the epoch, or with one that is not a positive integer, is corrupt.
        for epoch: [RedisReply] in [
            [], [.bulk(Array("e".utf8)), .bulk(Array("0".utf8))], [.bulk(Array("e".utf8)), .bulk(Array("x".utf8))],
        ] {
            #expect(throws: JournalRecordCoding.Corrupt.self) {
                try JournalRecordCoding.record(
                    id: "id", reply: Self.reply(checkpoint: checkpoint, list: list, deltaKey: extras, epoch: epoch),
                    viewModelNames: ["search"], compressor: compressor)
            }
        }

        // A log with a hole is corrupt: the state of version 5 cannot be rebuilt.
        #expect(throws: JournalRecordCoding.Corrupt.self) {
            try JournalRecordCoding.record(
                id: "id",
                reply: Self.reply(checkpoint: checkpoint, list: [list[0], list[1], list[3]], deltaKey: extras),
                viewModelNames: ["search"], compressor: compressor)
        }
    }

    /// Records of earlier releases hold the whole snapshot in their checkpoint (`x`, `y`, `z`) and its delta in
    /// the delta key, behind the log's newest patches with `x`; they load as the snapshot the delta makes.
    @Test func aRecordOfAnEarlierReleaseIsItsSnapshotWithItsDelta() throws {
        let compressor = JournalCompressor()
        let snapshotV3 = Array(
            #"{"state":{"searchText":"ab","photos":\#(Self.photos(40))},"debouncePending":false}"#.utf8)
        let snapshotV5 = Array(
            #"{"state":{"searchText":"abc","photos":\#(Self.photos(30, title: "cat"))},"debouncePending":false}"#.utf8)
        let delta = Self.delta(from: snapshotV3, to: snapshotV5, version: 3)
        let (list, _) = Self.log(compressor: compressor)
        let stateV5 = try JSONParser.parse(Self.state(version: 5, text: "abc", count: 0)).withPhotos(30)
        for tag in JournalRecordCoding.earlierCheckpointTags {
            let checkpoint = JournalRecordCoding.checkpoint(
                tag: tag, version: 3, stateBytes: Self.state(version: 3, text: "ab", count: 40), rest: snapshotV3,
                compressor: compressor)
            let record = try JournalRecordCoding.record(
                id: "id", reply: Self.reply(checkpoint: checkpoint, list: list, deltaKey: delta),
                viewModelNames: ["search"], compressor: compressor)
            let search = try #require(record.viewModels["search"])
            #expect(search.version == 5 && search.state == stateV5)
            #expect(search.continuation == .snapshot(try JSONParser.parse(snapshotV5)))
            #expect(search.replay.map(\.version) == [2, 3, 4, 5])
            // The newest entries in the delta key with the delta (`p`, the release before this one): the list and
            // they are one log.
            let value = Self.pendingValue(entries: list[2...].compactMap(\.bytes), delta: delta)
            let split = try JournalRecordCoding.record(
                id: "id", reply: Self.reply(checkpoint: checkpoint, list: Array(list[..<2]), deltaKey: value),
                viewModelNames: ["search"], compressor: compressor)
            #expect(split.viewModels["search"]?.state == stateV5)
            #expect(split.viewModels["search"]?.continuation == search.continuation)
            #expect(split.viewModels["search"]?.replay.map(\.version) == [2, 3, 4, 5])
            // Without its delta (empty: none since the checkpoint) the snapshot is the checkpoint's.
            let noDelta = try JournalRecordCoding.record(
                id: "id", reply: Self.reply(checkpoint: checkpoint, list: list, deltaKey: []),
                viewModelNames: ["search"], compressor: compressor)
            #expect(noDelta.viewModels["search"]?.continuation == .snapshot(try JSONParser.parse(snapshotV3)))
        }
    }

    /// The one argument `arguments` holds, decoded from its Redis bulk string.
    static func bulk(_ arguments: borrowing RedisArguments) throws -> [UInt8] {
        let encoded = arguments.withEncoded { Array($0) }
        let line = try #require(encoded.firstIndex(of: 0x0A))
        return Array(encoded[(line + 1)..<(encoded.count - 2)])
    }

    /// A delta key's value of the release before this one with entries (`p`, their count, the entries as Redis
    /// bulk strings, then the delta) reads back; a wrong or cut header is an error, not a trap.
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
        let value = Array("p2 ".utf8) + encoded + Array("7 0 0 ".utf8) + snapshot
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
        let extras = Array(#"{"results":{"hasValue":false,"error":null,"status":"idle"},"debouncePending":false}"#.utf8)
        let checkpoint = JournalRecordCoding.checkpoint(
            version: 2, stateBytes: state, rest: extras, compressor: compressor)
        #expect(checkpoint.count > state.count + extras.count, "stored: no deflate below 1 KiB")
        let model = try JournalRecordCoding.viewModel(
            name: "search", entry: checkpoint, deltaKey: [], list: [], compressor: compressor)
        #expect(model.version == 2)
        #expect(model.state == (try JSONParser.parse(state)))
        #expect(model.continuation == .extras(try JSONParser.parse(extras)))
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
        guard case .snapshot(let snapshot) = search.continuation else {
            Issue.record("an earlier entry holds the snapshot")
            return
        }
        #expect(snapshot["debouncePending"] == true)
        #expect(search.replay.map(\.version) == [9])
    }

    @Test func aCorruptCheckpointIsAnError() {
        let compressor = JournalCompressor()
        for entry: [UInt8] in [
            [0x7A], [0x7A, 1, 2, 3], [0x79], [0x79, 1, 2, 3], [0x78, 1, 2], [0x77], [0x77, 1, 2, 3],
            JournalRecordCoding.checkpoint(version: 2, stateBytes: Array("{}".utf8), rest: [], compressor: compressor),
            Array("{\"version\":1}".utf8),
        ] {
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
