import Foundation
import HTTPTypes
import OpenAPIRuntime

@testable import VMHostClient

/// A `ClientTransport` without sockets: every request is recorded and answered by the test's script, and an event
/// stream's body is fed by the test, chunk by chunk, then ended (a drop) or left open.
final class ScriptedTransport: ClientTransport, @unchecked Sendable {
    /// One request as the transport saw it.
    struct Sent: Sendable {
        let request: HTTPRequest
        let body: String?
        let operationID: String
        /// The number of this request among those of its operation, from 1.
        let index: Int

        func header(_ name: String) -> String? {
            HTTPField.Name(name).flatMap { request.headerFields[$0] }
        }
    }

    /// What the script answers with: a response, or an error thrown as if the connection broke.
    enum Answer {
        case response(HTTPResponse, HTTPBody?)
        case failure(any Error)
    }

    private let lock = NSLock()
    private var sentRequests: [Sent] = []
    private let script: @Sendable (Sent) async -> Answer

    init(script: @escaping @Sendable (Sent) async -> Answer) {
        self.script = script
    }

    var sent: [Sent] { lock.withLock { sentRequests } }

    func sent(_ operationID: String) -> [Sent] { sent.filter { $0.operationID == operationID } }

    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var text: String?
        if let body { text = try await String(collecting: body, upTo: 1 << 20) }
        let sent = lock.withLock {
            let index = sentRequests.filter { $0.operationID == operationID }.count + 1
            let sent = Sent(request: request, body: text, operationID: operationID, index: index)
            sentRequests.append(sent)
            return sent
        }
        switch await script(sent) {
        case .response(let response, let body): return (response, body)
        case .failure(let error): throw error
        }
    }
}

extension ScriptedTransport.Answer {
    /// A JSON answer.
    static func json(_ status: Int, _ text: String, headers: [String: String] = [:]) -> Self {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        for (name, value) in headers { if let name = HTTPField.Name(name) { fields[name] = value } }
        return .response(HTTPResponse(status: .init(code: status), headerFields: fields), HTTPBody(text))
    }

    /// An API error answer.
    static func error(_ status: Int, _ code: String, retryAfter: Int? = nil) -> Self {
        json(
            status, #"{"error":{"code":"\#(code)","message":"because \#(code)"}}"#,
            headers: retryAfter.map { ["Retry-After": "\($0)"] } ?? [:])
    }

    /// An event stream whose bytes the test writes.
    static func stream(_ feed: EventFeed) -> Self {
        var fields = HTTPFields()
        fields[.contentType] = "text/event-stream"
        return .response(
            HTTPResponse(status: .ok, headerFields: fields),
            HTTPBody(feed.take(), length: .unknown, iterationBehavior: .single))
    }
}

/// The bytes of one scripted event stream: events written by the test; `end()` drops the connection.
final class EventFeed: @unchecked Sendable {
    private let lock = NSLock()
    /// The stream until the transport hands it out: only the reader holds it then, so that its going away (a
    /// cancelled reader) ends the stream.
    private var pending: AsyncThrowingStream<ArraySlice<UInt8>, any Error>?
    private let continuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation
    private let closed = Flag()

    init() {
        let (stream, continuation) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        pending = stream
        self.continuation = continuation
        let closed = closed
        continuation.onTermination = { _ in closed.set() }
    }

    /// The stream's bytes, for the one response that carries them.
    func take() -> AsyncThrowingStream<ArraySlice<UInt8>, any Error> {
        lock.withLock {
            defer { pending = nil }
            return pending ?? AsyncThrowingStream { $0.finish() }
        }
    }

    /// Whether the reader went away (it cancelled) or the feed ended.
    var isClosed: Bool { closed.value }

    func send(_ text: String) { continuation.yield(ArraySlice(text.utf8)) }

    func event(_ name: String, id: String? = nil, data: String) {
        send((id.map { "id: \($0)\n" } ?? "") + "event: \(name)\ndata: \(data)\n\n")
    }

    func end() { continuation.finish() }
}

/// A flag set once, readable from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false

    var value: Bool { lock.withLock { isSet } }

    func set() { lock.withLock { isSet = true } }
}

/// Values collected from several tasks.
final class Recorder<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Value] = []

    var values: [Value] { lock.withLock { recorded } }

    func append(_ value: Value) { lock.withLock { recorded.append(value) } }
}

extension VMHostClientConfiguration {
    /// No real waiting: the delays asked for are recorded; jitter is fixed at its bottom (none added).
    static func recording(_ delays: Recorder<Duration>) -> VMHostClientConfiguration {
        var configuration = VMHostClientConfiguration()
        configuration.sleep = { delay in
            delays.append(delay)
            try Task.checkCancellation()
            await Task.yield()
        }
        configuration.random = { $0.lowerBound }
        return configuration
    }
}

/// States of the three view models as the server writes them.
enum Fixtures {
    static func search(version: Int, text: String = "") -> String {
        #"{"version":\#(version),"title":"Flickr Search","searchText":"\#(text)","canSearch":false,"isSearching":false,"results":{"status":"idle","value":null,"error":null},"canLoadMore":false,"recentSearches":[],"lastError":null}"#
    }

    static func products(version: Int) -> String {
        #"{"version":\#(version),"items":[],"page":0,"hasMore":false,"isRefreshing":false,"isLoadingMore":false,"lastError":null}"#
    }

    static func photo(version: Int) -> String {
        #"{"version":\#(version),"photoId":null,"detail":{"status":"idle","value":null,"error":null},"comments":{"status":"idle","value":null,"error":null},"lastError":null}"#
    }

    static func textPatch(version: Int, text: String) -> String {
        #"[{"op":"replace","path":"/version","value":\#(version)},{"op":"replace","path":"/searchText","value":"\#(text)"}]"#
    }

    static let baseURL = URL(string: "http://127.0.0.1:9")!
}

/// The client's own transport, with the head of every response it answered recorded.
final class RecordingTransport: ClientTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var heads: [(operationID: String, response: HTTPResponse)] = []
    private let wrapped = DefaultTransport.make()

    func responses(_ operationID: String) -> [HTTPResponse] {
        lock.withLock { heads.filter { $0.operationID == operationID }.map(\.response) }
    }

    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await wrapped.send(
            request, body: body, baseURL: baseURL, operationID: operationID)
        lock.withLock { heads.append((operationID, response)) }
        return (response, responseBody)
    }
}
