import JSON
import Redis
import Sessions

/// The journal's encodings: view model entries, replay entries and idempotency answers, and the record
/// read back by the takeover script. Everything read is external data: a wrong shape is an error, never a trap.
enum JournalRecordCoding {
    struct Corrupt: Error, CustomStringConvertible {
        var description: String
    }

    // MARK: Writing

    /// `{"version":N,"state":…,"snapshot":…}` around a state already serialised (the channel's bytes: the
    /// write path does not serialise the state a second time) and the view model's snapshot text.
    static func appendEntry(version: Int, stateBytes: [UInt8], snapshot: [UInt8], to command: inout RedisCommand) {
        // NB: the closures are written here, outside the loop's isolation: an isolated closure checks its
        // executor each time it runs.
        command.appendArgument { bytes in
            bytes.reserveCapacity(bytes.count + stateBytes.count + snapshot.count + 48)
            bytes.append(#"{"version":"#)
            JSONValue.int(version).serialize(into: &bytes)
            bytes.append(#","state":"#)
            bytes.append(contentsOf: stateBytes)
            bytes.append(#","snapshot":"#)
            bytes.append(contentsOf: snapshot)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// `"VERSION PATCH"`.
    static func appendReplayEntry(version: Int, patch: [UInt8], to command: inout RedisCommand) {
        command.appendArgument { bytes in
            JSONValue.int(version).serialize(into: &bytes)
            bytes.append(0x20)
            bytes.append(contentsOf: patch)
        }
    }

    static func answer(fingerprint: [UInt8], answer: IdempotentAnswer) -> [UInt8] {
        let hex = fingerprint.map {
            String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }
        .joined()
        return JSONValue.object([
            "fingerprint": .string(hex), "status": .int(answer.status),
            "headers": .array(answer.headers.map { [.string($0.name), .string($0.value)] }),
            "body": .string(String(decoding: answer.body, as: UTF8.self)),
        ]).serializedBytes
    }

    // MARK: Reading

    /// The record from the takeover script's reply: `{hash, key order, keys, replay lists…}`.
    static func record(id: String, reply: RedisReply, viewModelNames: [String]) throws(Corrupt) -> SessionRecord {
        guard case .array(let parts) = reply, parts.count == 3 + viewModelNames.count else {
            throw Corrupt(description: "the takeover reply has the wrong shape")
        }
        let hash = try pairs(parts[0])
        var viewModels: [String: SessionRecord.ViewModel] = [:]
        for (index, name) in viewModelNames.enumerated() {
            guard let bytes = hash["vm:" + name] else { continue }
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch {
                throw Corrupt(description: "vm:\(name) is not JSON: \(error)")
            }
            guard let version = value["version"]?.intValue, version >= 1, let state = value["state"],
                state.objectValue != nil, let snapshot = value["snapshot"]
            else { throw Corrupt(description: "vm:\(name) lacks version, state or snapshot") }
            viewModels[name] = SessionRecord.ViewModel(
                version: version, state: state, snapshot: snapshot, replay: try replay(parts[3 + index])
            )
        }
        let order = try list(parts[1])
        let answers = try pairs(parts[2])
        var idempotency: [(key: String, fingerprint: [UInt8], answer: IdempotentAnswer)] = []
        for keyBytes in order {
            let key = String(decoding: keyBytes, as: UTF8.self)
            guard let bytes = answers[key] else { continue }
            let (fingerprint, answer) = try self.answer(bytes)
            idempotency.append((key, fingerprint, answer))
        }
        // NB: a record written before sessions had owners has no `sub`: it loads as a session without one.
        let owner = hash["sub"].map { String(decoding: $0, as: UTF8.self) }
        return SessionRecord(id: id, viewModels: viewModels, idempotency: idempotency, owner: owner)
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

    private static func replay(_ reply: RedisReply) throws(Corrupt) -> [(version: Int, patch: [UInt8])] {
        var result: [(version: Int, patch: [UInt8])] = []
        for entry in try list(reply) {
            guard let space = entry.firstIndex(of: 0x20),
                let version = Int(String(decoding: entry[..<space], as: UTF8.self)), version >= 1
            else { throw Corrupt(description: "a replay entry without its version") }
            result.append((version, Array(entry[(space + 1)...])))
        }
        return result
    }

    private static func answer(_ bytes: [UInt8]) throws(Corrupt) -> ([UInt8], IdempotentAnswer) {
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
}
