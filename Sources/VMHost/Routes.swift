import EventLoop
import HTTPServer
import JSON
import Sessions
import ViewModels

/// The HTTP API of API.md, mapped onto sessions and view models.
@LoopActor
struct Routes {
    let sessions: SessionStore
    let metrics: VMHostMetrics
    let idleTimeoutSeconds: Int
    /// Open event streams (a multiplexed stream counts once) and open connections, for `/metrics`.
    let serverLoad: @LoopActor () -> (streams: Int, connections: Int)

    func register(on router: inout Router) {
        WebClient.register(on: &router)
        OpenAPIDocument.register(on: &router)
        router.on(.get, "/healthz") { _ in .response(.json(["status": "ok"])) }
        router.on(.get, "/metrics") { _ in
            let load = serverLoad()
            metrics.update(sessions: sessions.count, streams: load.streams, connections: load.connections)
            return .response(
                HTTPResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: metrics.exposition()
                )
            )
        }

        router.on(.post, "/v1/sessions") { _ in try createSession() }
        router.on(.get, "/v1/sessions/:id") { request in
            .response(.json(try session(request).json))
        }
        router.on(.delete, "/v1/sessions/:id") { request in
            let id = request.parameters["id"] ?? ""
            guard sessions.delete(id) else { throw Self.sessionNotFound(id) }
            return .response(.noContent)
        }

        router.on(.get, "/v1/sessions/:id/events") { request in try sessionStream(request) }
        registerViewModels(on: &router)
    }

    private func createSession() throws(HTTPError) -> HTTPHandlerResult {
        let session: Session
        do {
            session = try sessions.create()
        } catch {
            throw HTTPError(
                status: 429, code: "too_many_sessions",
                message: "the server holds its maximum of \(error.limit) sessions; try again later"
            )
        }
        metrics.sessionCreated()
        return .response(
            .json(
                ["id": .string(session.id), "idleTimeout": .int(idleTimeoutSeconds)], status: 201,
                headers: [HTTPHeader("Location", "/v1/sessions/\(session.id)")]
            )
        )
    }

    // MARK: View models

    /// `GET /v1/sessions/{id}/{name}`, `GET …/{name}/events` and `POST …/{name}/{command}` for every view model
    /// the sessions host: the routes come from the registrations, not from per-view-model code.
    private func registerViewModels(on router: inout Router) {
        for registration in sessions.viewModels {
            let name = registration.name
            router.on(.get, "/v1/sessions/:id/\(name)") { request in
                .response(.json(bytes: try slot(request, name).channel.stateBytes))
            }
            router.on(.get, "/v1/sessions/:id/\(name)/events") { request in
                try stream(request, slot: name)
            }
            for command in registration.commands {
                router.on(.post, "/v1/sessions/:id/\(name)/\(command.name)") { request in
                    let session = try session(request)
                    guard let slot = session.slot(name) else { throw HTTPError.notFound(request.path) }
                    let run = { () throws(HTTPError) -> HTTPHandlerResult in
                        try perform(command, on: slot, request: request)
                    }
                    guard let key = request.header("Idempotency-Key") else { return try run() }
                    return try IdempotentCommand.answer(
                        key: key, command: "\(name)/\(command.name)", request: request,
                        keys: session.idempotencyKeys, run: run
                    )
                }
            }
        }
    }

    /// Decodes and runs one command: `200` with the state, or `202` (or the state after `Prefer: wait`).
    private func perform(
        _ command: ViewModelRegistration.Command, on slot: ViewModelSlot, request: HTTPRequest
    ) throws(HTTPError) -> HTTPHandlerResult {
        let body = try request.jsonObjectBody()
        let reply: CommandReply
        do throws(CommandRejection) {
            reply = try slot.perform(command.decode(body))
        } catch {
            throw HTTPError(error)
        }
        switch reply {
        case .state:
            return .response(.json(bytes: slot.channel.stateBytes))
        case .accepted(let finished):
            return accepted(request, channel: slot.channel, until: finished)
        }
    }

    // MARK: Shared pieces

    /// The view model `name` of the session named by the path, or `404 session_not_found`.
    func slot(_ request: HTTPRequest, _ name: String) throws(HTTPError) -> ViewModelSlot {
        let session = try session(request)
        guard let slot = session.slot(name) else { throw HTTPError.notFound(request.path) }
        return slot
    }

    /// The session named by the path, or `404 session_not_found`.
    func session(_ request: HTTPRequest) throws(HTTPError) -> Session {
        let id = request.parameters["id"] ?? ""
        guard let session = sessions.session(id) else { throw Self.sessionNotFound(id) }
        return session
    }

    /// `202 {"version": N}`, or with `Prefer: wait=N` the state once the command finished (or N passed).
    func accepted(
        _ request: HTTPRequest, channel: StateChannel, until finished: @escaping @LoopActor () async -> Void
    ) -> HTTPHandlerResult {
        guard let wait = PreferWait.seconds(in: request.header("Prefer")) else {
            return .response(.json(["version": .int(channel.version)], status: 202))
        }
        return .deferred {
            // NB: `finished` returns early when cancelled, so the timer (or shutdown) ends the wait.
            let waiter = Task { @LoopActor in await finished() }
            let timer = Task { @LoopActor in
                try? await LoopClock().sleep(for: .seconds(wait))
                waiter.cancel()
            }
            await withTaskCancellationHandler {
                await waiter.value
            } onCancel: {
                waiter.cancel()
            }
            timer.cancel()
            return .json(bytes: channel.stateBytes, headers: [HTTPHeader("Preference-Applied", "wait=\(wait)")])
        }
    }

    /// Opens an event stream on a channel of the session.
    func stream(_ request: HTTPRequest, slot name: String) throws(HTTPError) -> HTTPHandlerResult {
        let target = try slot(request, name).channel
        let format = try Self.streamFormat(request)
        let lastEventID = Self.lastEventID(request).flatMap { Int($0) }
        return .stream { stream in
            target.subscribe(stream, format: format, lastEventID: lastEventID)
        }
    }

    /// Opens the stream carrying every view model of the session.
    func sessionStream(_ request: HTTPRequest) throws(HTTPError) -> HTTPHandlerResult {
        let session = try session(request)
        let format = try Self.streamFormat(request)
        let lastEventID = Self.lastEventID(request)
        return .stream { stream in
            session.subscribeAll(stream, format: format, resumeFrom: lastEventID)
        }
    }

    /// `?format=snapshot` or the default, patches.
    static func streamFormat(_ request: HTTPRequest) throws(HTTPError) -> StreamFormat {
        try StreamFormat(query: request.query["format"])
    }

    /// The `Last-Event-ID` header, or the `lastEventId` query parameter.
    static func lastEventID(_ request: HTTPRequest) -> String? {
        (request.header("Last-Event-ID") ?? request.query["lastEventId"]).map { $0.trimmingHTTPWhitespace() }
    }

    static func sessionNotFound(_ id: String) -> HTTPError {
        HTTPError(status: 404, code: "session_not_found", message: "no session '\(id)': it never existed, expired or was deleted")
    }
}

/// Parses `Prefer: wait=N` (RFC 7240), capped at 30 seconds.
///
/// N is delta-seconds, only digits: `-0`, `+5`, `1.5` or `1e3` are not understood, so the preference is
/// ignored (202 at once). Digits too many for an `Int` are still a valid, very long wait: the cap.
package enum PreferWait {
    /// The wait asked for by a `Prefer` header value, in `0...30` seconds; nil when it asks for none.
    package static func seconds(in header: String?) -> Int? {
        guard let header else { return nil }
        // NB: byte-level splitting: `x\u{600},wait=5` has a delimiter inside one grapheme (found by scripts/fuzz).
        for preference in header.httpFieldParts(separatedBy: ",") {
            let parts = preference.httpFieldParts(separatedBy: "=", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "wait", !parts[1].isEmpty,
                parts[1].utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            {
                return min(Int(parts[1]) ?? 30, 30)
            }
        }
        return nil
    }
}
