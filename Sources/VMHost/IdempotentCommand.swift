import EventLoop
import HTTPServer
import JSON
import Sessions

/// `Idempotency-Key` on a command (API.md, "Durable sessions and several nodes"): the first answer of a key
/// is kept and answered again to every repeat, with `Idempotent-Replayed: true`, without running the command
/// again; the same key with another command or body is `422 idempotency_key_reused`.
@LoopActor
enum IdempotentCommand {
    /// Runs its argument once what the session changed is durable (``Session/whenDurable(_:)``).
    typealias Durable = @LoopActor (@escaping @LoopActor () -> Void) -> Void

    /// The longest key accepted.
    static let maxKeyLength = 255

    /// Answers a command carrying `key`: runs it once, or replays its answer.
    /// - Parameters:
    ///   - command: the view model and command (`search/execute`), part of the key's identity with the body.
    ///   - run: runs the command; its errors become its answer.
    static func answer(
        key: String, command: String, request: HTTPRequest, keys: IdempotencyKeys,
        run: () throws(HTTPError) -> HTTPHandlerResult, durable: @escaping Durable
    ) throws(HTTPError) -> HTTPHandlerResult {
        try validate(key)
        switch keys.begin(key, fingerprint: fingerprint(command: command, request: request)) {
        case .reused:
            throw HTTPError(
                status: 422, code: .idempotencyKeyReused,
                message: "Idempotency-Key '\(key)' was used for another command or body on this session"
            )
        case .answered(let answer):
            return .response(replayed(answer))
        case .running:
            return .deferred {
                guard let answer = await keys.answer(for: key) else {
                    return HTTPErrorResponder.apiJSON.response(
                        for: HTTPError(
                            status: 503, code: .overloaded, message: "the first request with this key did not finish",
                            headers: [HTTPHeader("Retry-After", "1")]
                        )
                    )
                }
                return replayed(answer)
            }
        case .new:
            let result: HTTPHandlerResult
            do throws(HTTPError) {
                result = try run()
            } catch {
                result = .response(HTTPErrorResponder.apiJSON.response(for: error))
            }
            return recording(result, key: key, keys: keys, durable: durable)
        }
    }

    /// `result`, with its response kept as the key's answer once known.
    /// (With the journal, the answer goes out once the key and its answer are durable too: a retry on another
    /// node then finds it.)
    private static func recording(
        _ result: HTTPHandlerResult, key: String, keys: IdempotencyKeys, durable: @escaping Durable
    ) -> HTTPHandlerResult {
        switch result {
        case .response(let response):
            keys.finish(key, answer: stored(response))
            return .callback { respond in durable { respond(response) } }
        case .callback(let start):
            return .callback { respond in
                start { response in
                    keys.finish(key, answer: stored(response))
                    durable { respond(response) }
                }
            }
        case .deferred(let operation):
            return .deferred {
                let response = await operation()
                keys.finish(key, answer: stored(response))
                await withCheckedContinuation { continuation in durable { continuation.resume() } }
                return response
            }
        case .later(let operation):
            return .later {
                do {
                    return recording(try await operation(), key: key, keys: keys, durable: durable)
                } catch let error as HTTPError {
                    let response = HTTPErrorResponder.apiJSON.response(for: error)
                    return recording(.response(response), key: key, keys: keys, durable: durable)
                }
            }
        case .stream:
            return result
        }
    }

    /// 1 to 255 printable ASCII characters, else `400 invalid_field`.
    static func validate(_ key: String) throws(HTTPError) {
        let bytes = key.utf8
        guard !bytes.isEmpty, bytes.count <= maxKeyLength, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw HTTPError.invalidField(
                "Idempotency-Key", "must be 1 to \(maxKeyLength) printable ASCII characters"
            )
        }
    }

    /// What a key stands for: a 128-bit digest of the command and its body (re-serialised when it is JSON,
    /// so white space does not make another body). Two FNV-1a hashes with different offsets: not a
    /// cryptographic digest, but the only one who can choose colliding bodies is the session's own client.
    static func fingerprint(command: String, request: HTTPRequest) -> [UInt8] {
        var bytes = Array(command.utf8)
        bytes.append(0x0A)
        if let value = try? request.jsonBody() {
            bytes.append(contentsOf: value.serializedBytes)
        } else {
            bytes.append(contentsOf: request.body)
        }
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in bytes {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            second = (second &+ UInt64(byte)) &* 0x0000_0100_0000_01B3 ^ (second >> 29)
        }
        return withUnsafeBytes(of: (first.bigEndian, second.bigEndian)) { Array($0) }
    }

    private static func stored(_ response: HTTPResponse) -> IdempotentAnswer {
        IdempotentAnswer(
            status: response.status, headers: response.headers.map { IdempotentAnswer.Header($0.name, $0.value) },
            body: response.body
        )
    }

    private static func replayed(_ answer: IdempotentAnswer) -> HTTPResponse {
        HTTPResponse(
            status: answer.status,
            headers: answer.headers.map { HTTPHeader($0.name, $0.value) } + [HTTPHeader("Idempotent-Replayed", "true")],
            body: answer.body
        )
    }
}
