import HTTPServer
import JSON
import Sessions
import VMHost
import ViewModels

/// One fuzz input: what it exercises and the invariants checked on the way.
///
/// Input format: the first byte chooses the surface, the rest is its payload (seeds: `Tests/Fuzz/corpus`).
///
/// - `G` `H` `P` `U` `D` `O` `A` `T` `C`: a request with method GET, HEAD, POST, PUT, DELETE, OPTIONS,
///   PATCH, TRACE or CONNECT. The payload is the request target (path and query, up to the first newline),
///   then the body: `P/v1/sessions/abc/search/text` `\n` `{"text": "kittens"}`. The target is split and
///   decoded by `URIComponents`, matched with the real route table, and the body and query parameters of the
///   route are decoded by the functions its handler calls.
/// - `J`: the payload is a JSON text: parsed (both duplicate-key modes), round-tripped, and decoded as the
///   body of every command.
/// - `W`: the payload is a `Prefer` header value (`wait=5`).
/// - any other byte: the surface at `byte % 11` in the order above, so a mutated first byte still lands.
struct FuzzCase {
    private enum Surface {
        case request(HTTPMethod)
        case json
        case prefer
    }

    private static let surfaces: [(tag: UInt8, surface: Surface)] = [
        (UInt8(ascii: "G"), .request(.get)), (UInt8(ascii: "H"), .request(.head)),
        (UInt8(ascii: "P"), .request(.post)), (UInt8(ascii: "U"), .request(.put)),
        (UInt8(ascii: "D"), .request(.delete)), (UInt8(ascii: "O"), .request(.options)),
        (UInt8(ascii: "A"), .request(.patch)), (UInt8(ascii: "T"), .request(.trace)),
        (UInt8(ascii: "C"), .request(.connect)), (UInt8(ascii: "J"), .json), (UInt8(ascii: "W"), .prefer),
    ]

    private let surface: Surface?
    private let payload: UnsafeBufferPointer<UInt8>

    /// Splits an input into surface and payload (the empty input exercises nothing).
    init(_ input: UnsafeBufferPointer<UInt8>) {
        guard let first = input.first else {
            surface = nil
            payload = input
            return
        }
        surface = (Self.surfaces.first { $0.tag == first } ?? Self.surfaces[Int(first) % Self.surfaces.count]).surface
        payload = UnsafeBufferPointer(rebasing: input.dropFirst())
    }

    /// Runs the input; a broken invariant traps (libFuzzer then saves the input as a crash).
    func run(router: Router, viewModels: [ViewModelRegistration]) {
        switch surface {
        case nil: return
        case .request(let method): request(method, router: router, viewModels: viewModels)
        case .json: json(viewModels: viewModels)
        case .prefer: prefer()
        }
    }

    // MARK: Requests

    private func request(_ method: HTTPMethod, router: Router, viewModels: [ViewModelRegistration]) {
        let newline = payload.firstIndex(of: UInt8(ascii: "\n")) ?? payload.endIndex
        let body = UnsafeBufferPointer(rebasing: payload[min(newline + 1, payload.endIndex)...])
        // As the server reads it: `String(cString:)` of evhttp's URI, up to a NUL, invalid UTF-8 repaired.
        let target = String(decoding: payload[..<newline].prefix { $0 != 0 }, as: UTF8.self)
        guard let components = URIComponents(target: target) else {
            check(
                !(target.utf8.first == UInt8(ascii: "/") && !target.utf8.contains(UInt8(ascii: "%"))
                    && !target.unicodeScalars.contains("\u{FFFD}")),
                "a plain origin-form target was refused: \(target.debugDescription)"
            )
            return
        }
        Self.checkComponents(components, of: target)
        let match = Self.route(router, method: method, segments: components.segments)
        guard case .found(_, let pattern, _) = match else { return }
        decodeRequest(method, pattern: pattern, viewModels: viewModels, query: components.queryParameters(), body: body)
    }

    // NB: every check below works on UTF-8 bytes, not on `Character`s: a delimiter followed by a combining
    // mark (`?\u{301}`) is one grapheme, but still a delimiter on the wire.
    private static func checkComponents(_ components: URIComponents, of target: String) {
        let slash = UInt8(ascii: "/")
        guard let path = components.rawPath else {
            check(false, "a target split as a String has its raw path")
            return
        }
        check(path.startIndex == target.startIndex && path.utf8.first == slash, "rawPath does not start the target")
        check(components.pathLength == path.utf8.count, "pathLength is not the raw path's length")
        check(
            !path.utf8.contains(UInt8(ascii: "?")) && !path.utf8.contains(UInt8(ascii: "#")),
            "rawPath \(path.debugDescription) has a query or fragment"
        )
        if let query = components.rawQuery {
            check(!query.utf8.contains(UInt8(ascii: "#")), "rawQuery \(query.debugDescription) has a fragment")
            check(
                target.utf8[path.endIndex] == UInt8(ascii: "?")
                    && target.utf8.index(after: path.endIndex) == query.startIndex,
                "rawQuery is not right after '?'"
            )
        }
        let segments = components.segments
        check(segments.allSatisfy { !$0.isEmpty }, "empty segment in \(segments)")
        check(segments.count <= path.utf8.count { $0 == slash }, "more segments than slashes: \(segments)")
        if !path.utf8.contains(UInt8(ascii: "%")) {
            let split = path.utf8.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }
            check(segments == split, "unescaped path \(path.debugDescription) split into \(segments)")
        }
        // Decoding is the inverse of encoding: `%2F` stays inside its segment, every byte survives.
        let reencoded = "/" + segments.map { percentEncode($0) }.joined(separator: "/")
        check(URIComponents(target: reencoded)?.segments == segments, "segments \(segments) do not round-trip")

        let parameters = components.queryParameters()
        check(parameters.keys.allSatisfy { !$0.isEmpty }, "empty query parameter name")
        check(
            parameters == byteSplitQuery(components.rawQuery),
            "query \(String(describing: components.rawQuery)) is not split on its '&' and '=' bytes: \(parameters)"
        )
        let query = parameters.sorted { $0.key < $1.key }.map { percentEncode($0.key) + "=" + percentEncode($0.value) }
        let requery = URIComponents(target: "/?" + query.joined(separator: "&"))?.queryParameters()
        check(requery == parameters, "query parameters \(parameters) do not round-trip")
    }

    /// The query parameters as RFC 3986 reads them: pairs split on `&` bytes, then on the first `=` byte,
    /// each side decoded (`+` is a space); an empty name or a bad escape skips the pair; later pairs win.
    private static func byteSplitQuery(_ rawQuery: Substring?) -> [String: String] {
        guard let rawQuery else { return [:] }
        var result: [String: String] = [:]
        for pair in rawQuery.utf8.split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            // NB: split at ASCII bytes, so every piece is valid UTF-8 again.
            let name = Substring(String(decoding: pair[..<equals], as: UTF8.self))
            let value =
                equals < pair.endIndex
                ? Substring(String(decoding: pair[pair.index(after: equals)...], as: UTF8.self)) : ""
            guard let key = URIComponents.percentDecode(name, plusIsSpace: true), !key.isEmpty,
                let decoded = URIComponents.percentDecode(value, plusIsSpace: true)
            else { continue }
            result[key] = decoded
        }
        return result
    }

    /// Matches with every method and checks that they agree; returns the match for `method`.
    private static func route(_ router: Router, method: HTTPMethod, segments: [String]) -> Router.Match {
        var patterns: Set<String> = []
        var found: Set<HTTPMethod> = []
        var allowedLists: [[HTTPMethod]] = []
        var result = Router.Match.notFound
        for candidate in HTTPMethod.allCases {
            let match = router.match(method: candidate, segments: segments)
            if candidate == method { result = match }
            switch match {
            case .notFound:
                patterns.insert("")
            case .found(_, let pattern, let parameters):
                patterns.insert(pattern)
                found.insert(candidate)
                checkParameters(pattern: pattern, parameters: parameters, segments: segments)
            case .methodNotAllowed(let pattern, let allowed):
                patterns.insert(pattern)
                check(!allowed.isEmpty && !allowed.contains(candidate), "405 for \(candidate) allows \(allowed)")
                check(Set(allowed).count == allowed.count, "Allow lists a method twice: \(allowed)")
                allowedLists.append(allowed)
            }
        }
        // One route per path, whatever the method: the methods it has answer, every other one gets 405.
        check(patterns.count == 1, "methods disagree on the route of \(segments): \(patterns.sorted())")
        for allowed in allowedLists {
            check(Set(allowed) == found, "Allow \(allowed) is not the methods that match: \(found)")
        }
        return result
    }

    private static func checkParameters(pattern: String, parameters: PathParameters, segments: [String]) {
        let parts = pattern.split(separator: "/")
        check(parts.count == segments.count, "pattern \(pattern) matched \(segments)")
        var names: Set<String> = []
        for (part, segment) in zip(parts, segments) {
            if part.hasPrefix(":") {
                let name = String(part.dropFirst())
                names.insert(name)
                check(
                    parameters[name] == segment && !segment.isEmpty,
                    "parameter \(name) is not \(segment.debugDescription)")
            } else {
                check(part == segment, "literal \(part) matched \(segment.debugDescription)")
            }
        }
        check(Set(parameters.names) == names, "parameters \(parameters.names.sorted()) for \(pattern)")
    }

    /// Decodes what the handler of `pattern` decodes, with the same functions.
    private func decodeRequest(
        _ method: HTTPMethod, pattern: String, viewModels: [ViewModelRegistration], query: [String: String],
        body: UnsafeBufferPointer<UInt8>
    ) {
        // Every command of every view model is decoded with its own decoder, from the same table as the routes.
        if method == .post, let command = Self.command(at: pattern, in: viewModels) {
            Self.command(command, body)
            switch pattern {
            case "/v1/sessions/:id/search/text": Self.searchText(body)
            case "/v1/sessions/:id/search/execute": Self.searchExecute(body)
            case "/v1/sessions/:id/search/visible": Self.searchVisible(body)
            default: break
            }
            return
        }
        switch (method, pattern) {
        case (.post, "/v1/sessions"), (.delete, "/v1/sessions/:id"):
            return  // no body read
        case (.get, _), (.head, _):
            if pattern.hasSuffix("/events") { Self.streamFormat(query["format"]) }
        default:
            // A new route that reads a body must be decoded here too, so the fuzzer keeps covering it.
            check(false, "route \(method.rawValue) \(pattern) is not covered by FuzzCase.decodeRequest")
        }
    }

    // MARK: Command bodies

    /// Decodes `body` like the server (`jsonObjectBody()`, then `decode`), checking every error is a 4xx in
    /// the API's format and that a decoded command survives re-serialising its body.
    private static func decode<Command: Equatable>(
        _ body: UnsafeBufferPointer<UInt8>, _ makeCommand: (JSONObject) throws(HTTPError) -> Command
    ) -> (JSONObject, Result<Command, HTTPError>)? {
        let object: JSONObject
        do {
            object = try HTTPRequest.decodeJSONObjectBody(body)
        } catch {
            checkError(error, code: "invalid_json")
            return nil
        }
        let result = Result { () throws(HTTPError) in try makeCommand(object) }
        switch result {
        case .failure(let error):
            checkError(error, code: "invalid_field")
        case .success(let command):
            let again = JSONValue.object(object).serializedBytes.withUnsafeBufferPointer { bytes in
                Result { () throws(HTTPError) in try makeCommand(HTTPRequest.decodeJSONObjectBody(bytes)) }
            }
            check(again == .success(command), "the command changes when its body is re-serialised")
        }
        return (object, result)
    }

    /// The command routed at `pattern` (`/v1/sessions/:id/{viewModel}/{command}`), if any.
    private static func command(
        at pattern: String, in viewModels: [ViewModelRegistration]
    ) -> ViewModelRegistration.Command? {
        let parts = pattern.split(separator: "/")
        guard parts.count == 5, parts[0] == "v1", parts[1] == "sessions", parts[2] == ":id" else { return nil }
        return viewModels.first { $0.name == parts[3] }?.command(String(parts[4]))
    }

    /// Decodes `body` with a command's own decoder: a refusal is a 4xx in the API's format, and the
    /// verdict does not change when the body is re-serialised.
    private static func command(_ command: ViewModelRegistration.Command, _ body: UnsafeBufferPointer<UInt8>) {
        let object: JSONObject
        do {
            object = try HTTPRequest.decodeJSONObjectBody(body)
        } catch {
            checkError(error, code: "invalid_json")
            return
        }
        let verdict = Self.verdict(command, object)
        if let verdict { check((400..<500).contains(verdict.status), "\(command.name) refused with \(verdict)") }
        let again = JSONValue.object(object).serializedBytes.withUnsafeBufferPointer { bytes in
            (try? HTTPRequest.decodeJSONObjectBody(bytes)).map { Self.verdict(command, $0) }
        }
        check(again.map { $0 == verdict } ?? false, "\(command.name) decodes differently once re-serialised")
    }

    /// nil when `command` accepts `object`, else the API error it answers.
    private static func verdict(_ command: ViewModelRegistration.Command, _ object: JSONObject) -> HTTPError? {
        do throws(CommandRejection) {
            _ = try command.decode(object)
            return nil
        } catch {
            return HTTPError(error)
        }
    }

    /// Runs a decoder, mapping its refusal to the API error the server answers.
    private static func mapped<T>(_ decode: () throws(CommandRejection) -> T) throws(HTTPError) -> T {
        do throws(CommandRejection) {
            return try decode()
        } catch {
            throw HTTPError(error)
        }
    }

    private static func searchText(_ body: UnsafeBufferPointer<UInt8>) {
        guard
            let (object, result) = decode(
                body,
                { object throws(HTTPError) in
                    try Self.mapped { () throws(CommandRejection) in try SearchTextCommand(body: object) }
                })
        else { return }
        let autoSearch = object["autoSearch"]
        let valid = object["text"]?.stringValue != nil && (autoSearch?.isNull ?? true || autoSearch?.boolValue != nil)
        check(valid == ((try? result.get()) != nil), "search/text accepted \(object) wrongly: \(result)")
        if case .success(let command) = result {
            check(
                command.text == object["text"]?.stringValue, "text \(command.text.debugDescription) is not the body's")
            check(command.autoSearch == (autoSearch?.boolValue ?? false), "autoSearch is not the body's")
        }
    }

    private static func searchExecute(_ body: UnsafeBufferPointer<UInt8>) {
        guard
            let (object, result) = decode(
                body,
                { object throws(HTTPError) in
                    try Self.mapped { () throws(CommandRejection) in try SearchExecuteCommand(body: object) }
                })
        else { return }
        let text = object["text"]
        check(
            (text?.isNull ?? true || text?.stringValue != nil) == ((try? result.get()) != nil),
            "search/execute accepted \(object) wrongly: \(result)"
        )
        if case .success(let command) = result {
            check(command.text == text?.stringValue, "text \(String(describing: command.text)) is not the body's")
        }
    }

    private static func searchVisible(_ body: UnsafeBufferPointer<UInt8>) {
        guard
            let (object, result) = decode(
                body,
                { object throws(HTTPError) in
                    try Self.mapped { () throws(CommandRejection) in try SearchVisibleCommand(body: object) }
                })
        else { return }
        let ids = object["photoIds"]?.arrayValue.map { $0.compactMap(\.stringValue) }
        let valid =
            ids != nil && ids?.count == object["photoIds"]?.arrayValue?.count
            && (ids?.count ?? 0) <= SearchVisibleCommand.maxPhotos
        check(valid == ((try? result.get()) != nil), "search/visible accepted \(object) wrongly: \(result)")
        if case .success(let command) = result {
            check(command.photoIds == ids, "photoIds \(command.photoIds) are not the body's")
        }
    }

    private static func streamFormat(_ value: String?) {
        do {
            let format = try StreamFormat(query: value)
            switch value {
            case nil, "patch", "patches": check(format == .patches, "format \(String(describing: value))")
            default:
                check(format == .snapshots && (value == "snapshot" || value == "snapshots"), "format \(value ?? "")")
            }
        } catch {
            checkError(error, code: "invalid_field")
        }
    }

    /// An error answer: 4xx, the expected code, and a body in the API's format.
    private static func checkError(_ error: HTTPError, code: String) {
        check((400..<500).contains(error.status) && error.code.rawValue == code, "unexpected error \(error)")
        let response = HTTPErrorResponder.apiJSON.response(for: error)
        check(response.status == error.status, "error response status \(response.status)")
        check(response.header("Content-Type") == "application/json", "error response is not JSON")
        let expected: JSONValue = ["error": ["code": .string(error.code.rawValue), "message": .string(error.message)]]
        check((try? JSONParser.parse(response.body)) == expected, "error body \(response.body) is not the error")
    }

    // MARK: JSON

    private func json(viewModels: [ViewModelRegistration]) {
        let lenient = Result { () throws(JSONParseError) in try JSONParser.parse(payload) }
        let strict = Result { () throws(JSONParseError) in try JSONParser.parse(payload, rejectingDuplicateKeys: true) }
        switch (lenient, strict) {
        case (.success(let value), .success(let strictValue)):
            check(value == strictValue, "the duplicate-key modes disagree without duplicates")
        case (.success, .failure(let error)):
            check(error.message.hasPrefix("duplicate key"), "only the strict mode refused: \(error)")
        case (.failure(let error), .failure(let strictError)):
            check(
                error == strictError || strictError.message.hasPrefix("duplicate key"),
                "the modes fail differently: \(error) / \(strictError)"
            )
        case (.failure(let error), .success):
            check(false, "the strict mode accepted what the lenient mode refused: \(error)")
        }
        for case .failure(let error) in [lenient, strict] {
            check((0...payload.count).contains(error.offset), "error offset \(error.offset) outside the input")
        }
        if let text = String(validating: payload, as: UTF8.self) {
            let fromString = Result { () throws(JSONParseError) in try JSONParser.parse(text) }
            check(fromString == lenient, "parsing the String and its bytes differ")
        }
        if case .success(let value) = lenient { Self.checkRoundTrip(value) }

        Self.searchText(payload)
        Self.searchExecute(payload)
        Self.searchVisible(payload)
        for registration in viewModels {
            for command in registration.commands { Self.command(command, payload) }
        }
    }

    /// A parsed value re-serialises to JSON that parses back to an equal value, which serialises the same.
    private static func checkRoundTrip(_ value: JSONValue) {
        let text = value.serializedBytes
        check(String(validating: text, as: UTF8.self) != nil, "serialised JSON is not UTF-8")
        guard let again = try? JSONParser.parse(text, rejectingDuplicateKeys: true) else {
            check(false, "serialised JSON does not parse: \(String(decoding: text, as: UTF8.self))")
            return
        }
        check(again == value, "round trip changed \(value) into \(again)")
        check(again.hashValue == value.hashValue, "equal values hash differently: \(value)")
        check(
            again.serializedBytes == text,
            "serialisation is not a fixed point: \(String(decoding: text, as: UTF8.self))")
    }

    // MARK: Prefer

    private func prefer() {
        let header = String(decoding: payload, as: UTF8.self)
        let seconds = PreferWait.seconds(in: header)
        if let seconds {
            check((0...30).contains(seconds), "wait \(seconds) outside 0...30")
            let lowercased = Array(header.lowercased().utf8)
            let wait = Array("wait".utf8)
            check(
                lowercased.indices.contains { lowercased[$0...].starts(with: wait) },
                "a wait without 'wait' in \(header.debugDescription)"
            )
        }
        // The first wait preference wins; one appended after the others never overrides it.
        check(
            PreferWait.seconds(in: header + ",wait=5") == (seconds ?? 5),
            "appending wait=5 to \(header.debugDescription)")
    }
}

/// Percent-encodes every byte but the unreserved ones (RFC 3986), so decoding gives `text` back.
private func percentEncode(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            result.unicodeScalars.append(Unicode.Scalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            result += byte < 16 ? "%0" + hex : "%" + hex
        }
    }
    return result
}

/// Traps with `message` when an invariant does not hold (libFuzzer reports it as a crash).
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, line: UInt = #line) {
    if !condition() { fatalError("VMHostFuzz invariant broken: \(message())", line: line) }
}
