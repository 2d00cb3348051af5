import Foundation
import JSON
import OpenAPIRuntime

/// A session's one multiplexed event stream (`GET /v1/sessions/{id}/events`), shared by every `states` sequence of
/// its view models: open while at least one of them is being iterated, resumed after every drop.
///
/// It keeps the JSON of each view model's last version, so that a patch applies to it and a reconnection asks for
/// exactly what is missing (`Last-Event-ID: search:{v},products:{v},photo:{v}`): the server replays the patches after
/// those versions, or sends a newer snapshot. A patch that does not apply drops that view model's document and
/// reconnects at once without its part in the id, so that the server sends its snapshot: a subscriber never sees a
/// state built from a wrong base. Subscribers only ever get versions above the last one they got.
actor SessionEventStream {
    /// One `states` sequence being iterated.
    private struct Subscriber {
        let name: String
        var lastVersion: Int
        let deliver: @Sendable (JSONValue) -> Void
        let finish: @Sendable ((any Error)?) -> Void
    }

    /// What one event asks of the connection.
    private enum EventOutcome {
        case proceed
        case reconnectNow
    }

    private let sessionID: String
    private let api: Client
    private let configuration: VMHostClientConfiguration
    private var documents: [String: ViewModelDocument] = [:]
    private var subscribers: [UInt64: Subscriber] = [:]
    private var connection: Task<Void, Never>?
    /// Which connection task is the current one: events of a connection that was cancelled are ignored.
    private var generation: UInt64 = 0
    /// The server's `retry:`, the base of the reconnection delay.
    private var retry: Duration

    init(sessionID: String, api: Client, configuration: VMHostClientConfiguration) {
        self.sessionID = sessionID
        self.api = api
        self.configuration = configuration
        self.retry = configuration.defaultStreamRetry
    }

    /// Adds a subscriber for view model `name`; it gets the current version at once when the stream holds one.
    func subscribe(
        id: UInt64, name: String, deliver: @escaping @Sendable (JSONValue) -> Void,
        finish: @escaping @Sendable ((any Error)?) -> Void
    ) {
        var subscriber = Subscriber(name: name, lastVersion: 0, deliver: deliver, finish: finish)
        if let document = documents[name] {
            subscriber.lastVersion = document.version
            deliver(document.json)
        }
        subscribers[id] = subscriber
        if connection == nil { start() }
    }

    /// Removes a subscriber; the last one leaving closes the stream (the documents stay, for a later resume).
    func unsubscribe(id: UInt64) {
        guard subscribers.removeValue(forKey: id) != nil else { return }
        if subscribers.isEmpty { stop() }
    }

    /// The resume id of the versions held: `search:{v},products:{v},photo:{v}`, parts only for documents held.
    var lastEventID: String? {
        let parts = ViewModelDocument.knownNames.compactMap { name in documents[name].map { "\(name):\($0.version)" } }
        return parts.isEmpty ? nil : parts.joined(separator: ",")
    }

    private func start() {
        generation &+= 1
        let current = generation
        connection = Task { await self.run(generation: current) }
    }

    private func stop() {
        connection?.cancel()
        connection = nil
        generation &+= 1
    }

    /// Ends every subscriber's sequence (with `error`, or normally) and the stream.
    private func finishAll(_ error: (any Error)?) {
        let ending = subscribers
        subscribers = [:]
        stop()
        for subscriber in ending.values { subscriber.finish(error) }
    }

    /// Connects, reads, and reconnects after a delay, until cancelled or a failure that retrying cannot mend.
    private func run(generation: UInt64) async {
        var failures = 0
        // NB: a reconnection asked by an event (reauth, a patch that did not apply) goes at once, but only once in a
        // row: a server that keeps sending what cannot be applied is then backed off like any failure.
        var quickReconnects = 0
        while !Task.isCancelled, generation == self.generation {
            var retryAfter: Duration?
            var immediately = false
            do {
                let output = try await api.streamSession(
                    path: .init(id: sessionID), headers: .init(lastEventID: lastEventID))
                guard case .ok(let ok) = output else {
                    throw VMHostClientError.invalidResponse(message: "unexpected answer to the event stream")
                }
                let body = try ok.body.textEventStream
                for try await event in body.asDecodedServerSentEvents() {
                    guard generation == self.generation else { return }
                    if let milliseconds = event.retry, milliseconds >= 0 { retry = .milliseconds(milliseconds) }
                    guard case .reconnectNow = handle(event) else {
                        if event.event != nil || event.data != nil {
                            failures = 0
                            quickReconnects = 0
                        }
                        continue
                    }
                    immediately = quickReconnects == 0
                    quickReconnects += 1
                    break
                }
            } catch {
                if Task.isCancelled || generation != self.generation { return }
                let failure = Client.unwrap(error)
                switch failure {
                case .rateLimited(let after), .overloaded(let after):
                    retryAfter = after
                case .server(let status, _, _) where status >= 500:
                    // A proxy's 502 or 504 while a node goes away, a server's error: worth another try.
                    break
                case .invalidResponse, .transport:
                    break
                case .sessionNotFound, .unauthorized, .invalidRequest, .server, .commandDisabled:
                    finishAll(failure)
                    return
                }
            }
            if immediately { continue }
            failures += 1
            let delay = configuration.backoff(retry: failures, base: retry, retryAfter: retryAfter)
            do {
                try await configuration.sleep(delay)
            } catch {
                return
            }
        }
    }

    /// Applies one event to the documents and hands the new version to the view model's subscribers.
    private func handle(_ event: ServerSentEvent) -> EventOutcome {
        guard let name = event.event else { return .proceed }
        if name == "reauth" {
            // The token expired: the next connection asks `token` again (the middleware does for every request).
            return .reconnectNow
        }
        guard let dot = name.lastIndex(of: "."), let data = event.data else { return .proceed }
        let viewModel = String(name[..<dot])
        let kind = name[name.index(after: dot)...]
        let document: ViewModelDocument
        do {
            switch kind {
            case "snapshot":
                document = try ViewModelDocument(snapshot: data)
            case "patch":
                guard let base = documents[viewModel] else { return .reconnectNow }
                document = try base.applying(patch: data)
            default:
                return .proceed
            }
        } catch {
            // NB: never deliver a state built on a base the client does not have: forget it and ask for a snapshot.
            documents[viewModel] = nil
            return .reconnectNow
        }
        documents[viewModel] = document
        for (id, subscriber) in subscribers
        where subscriber.name == viewModel && document.version > subscriber.lastVersion {
            subscribers[id]?.lastVersion = document.version
            subscriber.deliver(document.json)
        }
        return .proceed
    }
}
