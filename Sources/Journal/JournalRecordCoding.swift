import Bytes
import JSON
import JSONPatch
import Redis
import Sessions

/// The journal's encodings: view model entries, replay entries and idempotency answers, and the record
/// read back by the takeover script. Everything read is external data: a wrong shape is an error, never a trap.
enum JournalRecordCoding {
    struct Corrupt: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Writing

    /// The first byte of a compressed checkpoint (an entry of the earlier format starts with `{`). NB: `w`, not
    /// the `x`, `y` or `z` of earlier releases, whose checkpoints hold the whole snapshot rather than the extras:
    /// an unknown tag makes this release's records unreadable to them, so they treat the session as missing
    /// instead of reading extras as a snapshot (``JournalScript``).
    static let checkpointTag = UInt8(ascii: "w")
    /// The first byte of a compressed checkpoint written by earlier releases, with the whole snapshot where this
    /// release's hold the extras (`x`: patches in the delta key with the snapshot delta; `y`: epochs, the delta
    /// key with the delta alone; `z`: before epochs, the delta in the hash), the same encoding, still read.
    static let earlierCheckpointTags: [UInt8] = [UInt8(ascii: "x"), UInt8(ascii: "y"), UInt8(ascii: "z")]
    /// The first byte of a delta key's value that holds extras (``appendExtras(_:to:)``), this release's: a value
    /// of an earlier release starts with `p` (``pendingEntriesTag``) or a digit (a snapshot delta).
    static let extrasTag = UInt8(ascii: "e")
    /// The first byte of a delta key's value, written by the release before this one, that holds patches of the
    /// log before the snapshot delta (``deltaKeyValue(_:compressor:)``); a delta alone starts with its
    /// checkpoint's version.
    static let pendingEntriesTag = UInt8(ascii: "p")
    /// The first byte of a compressed patch (a plain one starts with `[`).
    static let compressedPatchTag = UInt8(ascii: "z")
    /// Patches from this size on are stored compressed: those of loads (a page of results, ~6.6 KB, deflates
    /// ~4×), not those of ordinary commands (a few hundred bytes, which would cost more CPU than they save).
    static let compressedPatchBytes = 512
    /// Checkpoints from this size on are deflated; smaller ones are stored (still raw deflate, uncompressed).
    static let compressedCheckpointBytes = 1024

    /// A checkpoint: `w` then the raw deflate of `VERSION STATE_BYTES STATE EXTRAS` (decimal version and state
    /// byte count, a space after each, the state's JSON text with `version`, the extras' JSON text).
    static func appendCheckpoint(
        version: Int, stateBytes: [UInt8], extras: [UInt8], scratch: inout [UInt8],
        compressor: JournalCompressor, to command: inout RedisArguments
    ) {
        command.appendArgument { text in
            writeCheckpoint(
                tag: checkpointTag, version: version, stateBytes: stateBytes, rest: extras, scratch: &scratch,
                compressor: compressor, into: &text)
        }
    }

    /// The same, into `text`, with `tag` and `rest` after the state: the extras (`w`), or the snapshot's text
    /// (the ``earlierCheckpointTags``, which tests write).
    static func writeCheckpoint(
        tag: UInt8, version: Int, stateBytes: [UInt8], rest: [UInt8], scratch: inout [UInt8],
        compressor: JournalCompressor, into text: inout ByteWriter
    ) {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: String(version).utf8)
        scratch.append(0x20)
        scratch.append(contentsOf: String(stateBytes.count).utf8)
        scratch.append(0x20)
        scratch.append(contentsOf: stateBytes)
        scratch.append(contentsOf: rest)
        var bytes = [tag]
        scratch.withUnsafeBytes { input in
            // NB: a small checkpoint (a view model with nothing loaded) goes as stored blocks: deflating it
            // cost ~60k instructions (callgrind) to save ~250 bytes, on the write of every 32nd command.
            if input.count < compressedCheckpointBytes {
                JournalCompressor.appendStored(input, to: &bytes)
            } else {
                compressor.compress(input, appendingTo: &bytes)
            }
        }
        text.put(bytes)
    }

    /// The checkpoint ``writeCheckpoint(tag:version:stateBytes:rest:scratch:compressor:into:)`` writes, as bytes.
    static func checkpoint(
        tag: UInt8 = checkpointTag, version: Int, stateBytes: [UInt8], rest: [UInt8], compressor: JournalCompressor
    ) -> [UInt8] {
        var text = ByteWriter()
        var scratch: [UInt8] = []
        writeCheckpoint(
            tag: tag, version: version, stateBytes: stateBytes, rest: rest, scratch: &scratch,
            compressor: compressor, into: &text)
        return text.bytes
    }

    /// A view model's delta key holding its extras: `e` then their text (``extrasTag``).
    static func appendExtras(_ extras: [UInt8], to command: inout RedisArguments) {
        command.appendArgument(length: 1 + extras.count) { text in
            text.put(extrasTag)
            text.put(extras)
        }
    }

    /// `"VERSION PATCH"`; a patch of ``compressedPatchBytes`` or more as `z` and its raw deflate.
    static func appendReplayEntry(
        version: Int, patch: [UInt8], compressor: JournalCompressor, to command: inout RedisArguments
    ) {
        guard patch.count < compressedPatchBytes else {
            command.appendArgument {
                writeReplayEntry(version: version, patch: patch, compressor: compressor, into: &$0)
            }
            return
        }
        // NB: a plain entry's length is known first: written in front, no move of the entry behind it.
        command.appendArgument(length: DecimalDigits.count(of: version) + 1 + patch.count) {
            writeReplayEntry(version: version, patch: patch, compressor: compressor, into: &$0)
        }
    }

    /// The same, into `text`.
    static func writeReplayEntry(
        version: Int, patch: [UInt8], compressor: JournalCompressor, into text: inout ByteWriter
    ) {
        text.putDecimal(version)
        text.put(0x20)
        if patch.count >= compressedPatchBytes {
            var compressed = [compressedPatchTag]
            patch.withUnsafeBytes { compressor.compress($0, appendingTo: &compressed) }
            text.put(compressed)
        } else {
            text.put(patch)
        }
    }

    /// The entries and the snapshot delta of a delta key's value as the release before this one wrote it with an
    /// `x` checkpoint: `p`, the count of the log's newest entries it holds, a space, those entries as Redis bulk
    /// strings (`$LENGTH\r\nENTRY\r\n`), then the snapshot delta (``SnapshotDelta``); or the delta alone (`y`, `z`);
    /// empty: neither.
    static func deltaKeyValue(
        _ value: [UInt8], compressor: JournalCompressor
    ) throws(Corrupt) -> (entries: [(version: Int, patch: [UInt8])], delta: [UInt8]?) {
        guard value.first == pendingEntriesTag else { return ([], value.isEmpty ? nil : value) }
        func number(from start: Int, until end: UInt8) throws(Corrupt) -> (Int, next: Int) {
            guard let stop = value[start...].firstIndex(of: end),
                let number = Int(String(decoding: value[start..<stop], as: UTF8.self)), number >= 0
            else { throw Corrupt(description: "a delta key's value with a wrong entry header") }
            return (number, stop + 1)
        }
        var (count, position) = try number(from: 1, until: 0x20)
        var entries: [(version: Int, patch: [UInt8])] = []
        while count > 0 {
            guard position < value.count, value[position] == UInt8(ascii: "$") else {
                throw Corrupt(description: "a delta key's value with a wrong entry header")
            }
            let (length, start) = try number(from: position + 1, until: 0x0D)
            guard start < value.count, value[start] == 0x0A, length <= value.count - start - 3,
                value[start + 1 + length] == 0x0D, value[start + 2 + length] == 0x0A
            else { throw Corrupt(description: "a delta key's value with a cut entry") }
            entries.append(try replayEntry(Array(value[(start + 1)..<(start + 1 + length)]), compressor: compressor))
            position = start + 3 + length
            count -= 1
        }
        return (entries, position < value.count ? Array(value[position...]) : nil)
    }

    /// The first byte of a compressed idempotency answer (a plain one is JSON: `{`).
    static let compressedAnswerTag = UInt8(ascii: "z")
    /// Answers from this size on are stored compressed by a full write: a command's answer is its view model's
    /// whole state (~12 KB with two pages loaded), kept for up to 256 keys.
    static let compressedAnswerBytes = 1024

    /// The first byte of an answer framed as ``answer(fingerprint:answer:compressing:compressor:)`` writes it
    /// (earlier releases wrote JSON: `{`).
    static let framedAnswerTag = UInt8(ascii: "a")

    /// `a`, then decimal numbers each followed by a space: the fingerprint's byte count, the status, the header
    /// count, and per header its name's and its value's byte counts; then the fingerprint, each header's name and
    /// value, and the body, as they are. With `compressing`, from ``compressedAnswerBytes`` on, `z` and the raw
    /// deflate of that.
    /// NB: the body goes in as bytes: as a JSON string (the earlier layout) it was escaped and re-encoded,
    /// ~355k instructions for a loaded session's answer (callgrind), more than the command. A command's own write
    /// stores it uncompressed: deflating it cost ~376k more. Full writes (catch-up, hibernation) compress them.
    static func answer(
        fingerprint: [UInt8], answer: IdempotentAnswer, compressing: Bool, compressor: JournalCompressor
    ) -> [UInt8] {
        var framed: [UInt8] = [framedAnswerTag]
        framed.reserveCapacity(answer.body.count + fingerprint.count + 64 * (answer.headers.count + 1))
        func number(_ value: Int) {
            JSONValue.int(value).serialize(into: &framed)
            framed.append(0x20)
        }
        number(fingerprint.count)
        number(answer.status)
        number(answer.headers.count)
        for header in answer.headers {
            number(header.name.utf8.count)
            number(header.value.utf8.count)
        }
        framed.append(contentsOf: fingerprint)
        for header in answer.headers {
            framed.append(contentsOf: header.name.utf8)
            framed.append(contentsOf: header.value.utf8)
        }
        framed.append(contentsOf: answer.body)
        guard compressing, framed.count >= compressedAnswerBytes else { return framed }
        var bytes = [compressedAnswerTag]
        framed.withUnsafeBytes { compressor.compress($0, appendingTo: &bytes) }
        return bytes
    }

    // MARK: Reading

    /// The record from the takeover script's reply: `{hash, key order, keys, replay lists…, delta keys…}`.
    ///
    /// A view model's entry is a checkpoint (`w`…, or `x`…, `y`… and `z`… of earlier releases) or a whole entry
    /// (`{"version","state","snapshot"}`, an earlier format, still read); the patches after the checkpoint's
    /// version in its replay list (and, for `x`, then in its delta key) are applied to its state. Its delta key
    /// holds its extras when they changed since a `w` checkpoint, or an earlier release's snapshot delta. The
    /// hash's `e` is the session's epoch (the takeover's).
    static func record(
        id: String, reply: RedisReply, viewModelNames: [String], compressor: JournalCompressor
    ) throws(Corrupt) -> SessionRecord {
        let count = viewModelNames.count
        guard case .array(let parts) = reply, parts.count == 3 + 2 * count else {
            throw Corrupt(description: "the takeover reply has the wrong shape")
        }
        let hash = try pairs(parts[0])
        guard let epochBytes = hash["e"], let epoch = Int(String(decoding: epochBytes, as: UTF8.self)), epoch >= 1
        else { throw Corrupt(description: "the session's epoch is missing or not a positive integer") }
        var viewModels: [String: SessionRecord.ViewModel] = [:]
        for (index, name) in viewModelNames.enumerated() {
            guard let bytes = hash["vm:" + name] else { continue }
            guard let value = parts[3 + count + index].bytes else {
                throw Corrupt(description: "d:\(name) is not a string")
            }
            viewModels[name] = try viewModel(
                name: name, entry: bytes, deltaKey: value, list: replay(parts[3 + index], compressor: compressor),
                compressor: compressor)
        }
        let order = try list(parts[1])
        let answers = try pairs(parts[2])
        var idempotency: [(key: String, fingerprint: [UInt8], answer: IdempotentAnswer)] = []
        for keyBytes in order {
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard let bytes = answers[key] else { continue }
            let (fingerprint, answer) = try self.answer(bytes, compressor: compressor)
            idempotency.append((key, fingerprint, answer))
        }
        // NB: a record written before sessions had owners has no `sub`: it loads as a session without one.
        let owner = hash["sub"].map { String(decoding: $0, as: UTF8.self) }
        return SessionRecord(
            id: id, viewModels: viewModels, idempotency: idempotency, owner: owner, journalEpoch: epoch)
    }

    /// One view model from its entry, the value of its delta key (empty for none) and its replay list (decoded,
    /// oldest first).
    static func viewModel(
        name: String, entry: [UInt8], deltaKey value: [UInt8], list: [(version: Int, patch: [UInt8])],
        compressor: JournalCompressor
    ) throws(Corrupt) -> SessionRecord.ViewModel {
        var checkpoint: Checkpoint
        var replay = list
        if entry.first == checkpointTag {
            checkpoint = try Self.checkpoint(name: name, entry: entry, delta: nil, compressor: compressor)
            if !value.isEmpty {
                guard value.first == extrasTag else {
                    throw Corrupt(description: "d:\(name) holds no extras where its checkpoint needs them")
                }
                checkpoint.continuation = .extras(try parse(value[1...], "d:\(name)"))
            }
        } else {
            let (pending, delta) = try deltaKeyValue(value, compressor: compressor)
            replay += pending
            if let tag = entry.first, earlierCheckpointTags.contains(tag) {
                checkpoint = try Self.checkpoint(name: name, entry: entry, delta: delta, compressor: compressor)
            } else {
                checkpoint = try wholeEntry(name: name, entry: entry)
            }
        }
        // The log: every patch after the checkpoint, in order, applied to its state.
        var state = checkpoint.state
        var version = checkpoint.version
        for (patchVersion, patch) in replay where patchVersion > checkpoint.version {
            guard patchVersion == version + 1 else {
                throw Corrupt(description: "vm:\(name) lacks the patch of version \(version + 1)")
            }
            do {
                state = try JSONPatch.apply(JSONPatch.parse(JSONParser.parse(patch)), to: state)
            } catch {
                throw Corrupt(description: "vm:\(name): the patch of version \(patchVersion) does not apply: \(error)")
            }
            version = patchVersion
        }
        guard state["version"]?.intValue == version, state.objectValue != nil else {
            throw Corrupt(description: "vm:\(name): the state is not the one of version \(version)")
        }
        return SessionRecord.ViewModel(
            version: version, state: state, continuation: checkpoint.continuation, replay: replay)
    }

    private struct Checkpoint {
        var version: Int
        var state: JSONValue
        var continuation: SessionRecord.ViewModel.Continuation
    }

    private static func parse(_ text: ArraySlice<UInt8>, _ what: String) throws(Corrupt) -> JSONValue {
        do {
            return try JSONParser.parse(text)
        } catch {
            throw Corrupt(description: "\(what) is not JSON: \(error)")
        }
    }

    /// A compressed checkpoint: its state, and its extras (`w`) or its snapshot spliced with `delta` (earlier
    /// releases').
    private static func checkpoint(
        name: String, entry: [UInt8], delta: [UInt8]?, compressor: JournalCompressor
    ) throws(Corrupt) -> Checkpoint {
        let payload: [UInt8]
        do {
            payload = try compressor.decompress(entry[1...])
        } catch {
            throw Corrupt(description: "vm:\(name) does not inflate: \(error)")
        }
        var numbers: [Int] = []
        var start = 0
        while numbers.count < 2 {
            guard let space = payload[start...].firstIndex(of: 0x20),
                let number = Int(String(decoding: payload[start..<space], as: UTF8.self)), number >= 0
            else { throw Corrupt(description: "vm:\(name): a checkpoint without its header") }
            numbers.append(number)
            start = space + 1
        }
        let version = numbers[0]
        guard version >= 1, numbers[1] <= payload.count - start else {
            throw Corrupt(description: "vm:\(name): a checkpoint with a wrong header")
        }
        let stateEnd = start + numbers[1]
        let state = try parse(payload[start..<stateEnd], "vm:\(name)'s state")
        if entry.first == checkpointTag {
            let extras = try parse(payload[stateEnd...], "vm:\(name)'s extras")
            return Checkpoint(version: version, state: state, continuation: .extras(extras))
        }
        var snapshotText = Array(payload[stateEnd...])
        if let delta {
            do {
                snapshotText = try SnapshotDelta.apply(delta, to: snapshotText, version: version)
            } catch {
                throw Corrupt(description: "d:\(name): \(error)")
            }
        }
        let snapshot = try parse(snapshotText[...], "vm:\(name)'s snapshot")
        return Checkpoint(version: version, state: state, continuation: .snapshot(snapshot))
    }

    /// An entry of the earlier format: `{"version","state","snapshot"}`, the whole view model at its version.
    private static func wholeEntry(name: String, entry: [UInt8]) throws(Corrupt) -> Checkpoint {
        let value: JSONValue
        do {
            value = try JSONParser.parse(entry)
        } catch {
            throw Corrupt(description: "vm:\(name) is not JSON: \(error)")
        }
        guard let version = value["version"]?.intValue, version >= 1, let state = value["state"],
            var fields = state.objectValue, let snapshot = value["snapshot"]
        else { throw Corrupt(description: "vm:\(name) lacks version, state or snapshot") }
        // NB: entries of the earlier format carry `version` in their state; one without gets the entry's.
        if fields["version"] == nil { fields["version"] = .int(version) }
        return Checkpoint(version: version, state: .object(fields), continuation: .snapshot(snapshot))
    }

    private static func list(_ reply: RedisReply) throws(Corrupt) -> [[UInt8]] {
        guard case .array(let elements) = reply else { throw Corrupt(description: "expected a list") }
        var result: [[UInt8]] = []
        for element in elements {
            guard let bytes = element.bytes else { throw Corrupt(description: "expected a string in a list") }
            result.append(bytes)
        }
        return result
    }

    private static func pairs(_ reply: RedisReply) throws(Corrupt) -> [String: [UInt8]] {
        let flat = try list(reply)
        guard flat.count % 2 == 0 else { throw Corrupt(description: "a hash reply with an odd length") }
        var result: [String: [UInt8]] = [:]
        for index in stride(from: 0, to: flat.count, by: 2) {
            result[String(decoding: flat[index], as: UTF8.self)] = flat[index + 1]
        }
        return result
    }

    private static func replay(
        _ reply: RedisReply, compressor: JournalCompressor
    ) throws(Corrupt) -> [(version: Int, patch: [UInt8])] {
        var result: [(version: Int, patch: [UInt8])] = []
        for entry in try list(reply) { result.append(try replayEntry(entry, compressor: compressor)) }
        return result
    }

    /// One `"VERSION PATCH"` entry, its patch inflated when compressed.
    static func replayEntry(
        _ entry: [UInt8], compressor: JournalCompressor
    ) throws(Corrupt) -> (version: Int, patch: [UInt8]) {
        guard let space = entry.firstIndex(of: 0x20),
            let version = Int(String(decoding: entry[..<space], as: UTF8.self)), version >= 1
        else { throw Corrupt(description: "a replay entry without its version") }
        guard entry.count > space + 1, entry[space + 1] == compressedPatchTag else {
            return (version, Array(entry[(space + 1)...]))
        }
        do {
            return (version, try compressor.decompress(entry[(space + 2)...]))
        } catch {
            throw Corrupt(description: "the replay entry of version \(version) does not inflate: \(error)")
        }
    }

    static func answer(
        _ stored: [UInt8], compressor: JournalCompressor
    ) throws(Corrupt) -> ([UInt8], IdempotentAnswer) {
        var bytes = stored
        if stored.first == compressedAnswerTag {
            do {
                bytes = try compressor.decompress(stored[1...])
            } catch {
                throw Corrupt(description: "an idempotency answer does not inflate: \(error)")
            }
        }
        if bytes.first == framedAnswerTag { return try framedAnswer(bytes) }
        guard let value = try? JSONParser.parse(bytes), let hex = value["fingerprint"]?.stringValue,
            let status = value["status"]?.intValue, (100...599).contains(status),
            let headerList = value["headers"]?.arrayValue, let body = value["body"]?.stringValue
        else { throw Corrupt(description: "an idempotency answer has the wrong shape") }
        var headers: [IdempotentAnswer.Header] = []
        for header in headerList {
            guard let name = header[0]?.stringValue, let text = header[1]?.stringValue else {
                throw Corrupt(description: "an idempotency answer header has the wrong shape")
            }
            headers.append(IdempotentAnswer.Header(name, text))
        }
        var fingerprint: [UInt8] = []
        var digits = Array(hex.utf8)[...]
        while digits.count >= 2 {
            guard let byte = UInt8(String(decoding: digits.prefix(2), as: UTF8.self), radix: 16) else {
                throw Corrupt(description: "an idempotency fingerprint is not hex")
            }
            fingerprint.append(byte)
            digits = digits.dropFirst(2)
        }
        return (fingerprint, IdempotentAnswer(status: status, headers: headers, body: Array(body.utf8)))
    }

    /// An answer in the framed layout (``answer(fingerprint:answer:compressing:compressor:)``).
    private static func framedAnswer(_ bytes: [UInt8]) throws(Corrupt) -> ([UInt8], IdempotentAnswer) {
        var offset = 1
        func number() throws(Corrupt) -> Int {
            guard let space = bytes[offset...].firstIndex(of: 0x20), space - offset <= 9,
                let value = Int(String(decoding: bytes[offset..<space], as: UTF8.self)), value >= 0
            else { throw Corrupt(description: "an idempotency answer without its header") }
            offset = space + 1
            return value
        }
        let fingerprintCount = try number()
        let status = try number()
        let headerCount = try number()
        guard (100...599).contains(status), headerCount <= 64 else {
            throw Corrupt(description: "an idempotency answer with a wrong status or header count")
        }
        var lengths: [(name: Int, value: Int)] = []
        for _ in 0..<headerCount { lengths.append((try number(), try number())) }
        func take(_ count: Int) throws(Corrupt) -> ArraySlice<UInt8> {
            guard count <= bytes.count - offset else { throw Corrupt(description: "an idempotency answer cut short") }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }
        let fingerprint = Array(try take(fingerprintCount))
        var headers: [IdempotentAnswer.Header] = []
        for (name, value) in lengths {
            let nameText = String(decoding: try take(name), as: UTF8.self)
            headers.append(IdempotentAnswer.Header(nameText, String(decoding: try take(value), as: UTF8.self)))
        }
        return (fingerprint, IdempotentAnswer(status: status, headers: headers, body: Array(bytes[offset...])))
    }
}
