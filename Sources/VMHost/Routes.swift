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
        registerSearch(on: &router)
        registerProducts(on: &router)
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

    // MARK: Search

    private func registerSearch(on router: inout Router) {
        router.on(.get, "/v1/sessions/:id/search") { request in
            .response(.json(bytes: try session(request).searchChannel.stateBytes))
        }
        router.on(.get, "/v1/sessions/:id/search/events") { request in
            try stream(request) { $0.searchChannel }
        }
        router.on(.post, "/v1/sessions/:id/search/text") { request in
            let session = try session(request)
            let command = try SearchTextCommand(body: request.jsonObjectBody())
            session.search.setText(command.text, autoSearch: command.autoSearch)
            return .response(.json(bytes: session.searchChannel.stateBytes))
        }
        router.on(.post, "/v1/sessions/:id/search/execute") { request in
            let session = try session(request)
            let command = try SearchExecuteCommand(body: request.jsonObjectBody())
            do throws(CommandDisabled) {
                try session.search.execute(text: command.text)
            } catch {
                throw Self.commandDisabled(error)
            }
            return accepted(request, channel: session.searchChannel) { await session.search.waitUntilIdle() }
        }
        router.on(.post, "/v1/sessions/:id/search/load-more") { request in
            let session = try session(request)
            _ = try request.jsonObjectBody()
            do throws(CommandDisabled) {
                try session.search.loadMore()
            } catch {
                throw Self.commandDisabled(error)
            }
            return accepted(request, channel: session.searchChannel) { await session.search.waitUntilIdle() }
        }
        router.on(.post, "/v1/sessions/:id/search/cancel") { request in
            let session = try session(request)
            _ = try request.jsonObjectBody()
            session.search.cancel()
            return .response(.json(bytes: session.searchChannel.stateBytes))
        }
        router.on(.post, "/v1/sessions/:id/search/visible") { request in
            let session = try session(request)
            let command = try SearchVisibleCommand(body: request.jsonObjectBody())
            session.search.visible(command.photoIds)
            return accepted(request, channel: session.searchChannel) { await session.search.waitUntilMetadataLoaded() }
        }
    }

    // MARK: Products

    private func registerProducts(on router: inout Router) {
        router.on(.get, "/v1/sessions/:id/products") { request in
            .response(.json(bytes: try session(request).productsChannel.stateBytes))
        }
        router.on(.get, "/v1/sessions/:id/products/events") { request in
            try stream(request) { $0.productsChannel }
        }
        router.on(.post, "/v1/sessions/:id/products/refresh") { request in
            let session = try session(request)
            _ = try request.jsonObjectBody()
            session.products.refresh()
            return accepted(request, channel: session.productsChannel) { await session.products.waitUntilIdle() }
        }
        router.on(.post, "/v1/sessions/:id/products/load-more") { request in
            let session = try session(request)
            _ = try request.jsonObjectBody()
            do throws(CommandDisabled) {
                try session.products.loadMore()
            } catch {
                throw Self.commandDisabled(error)
            }
            return accepted(request, channel: session.productsChannel) { await session.products.waitUntilIdle() }
        }
        router.on(.post, "/v1/sessions/:id/products/cancel") { request in
            let session = try session(request)
            _ = try request.jsonObjectBody()
            session.products.cancel()
            return .response(.json(bytes: session.productsChannel.stateBytes))
        }
    }

    // MARK: Shared pieces

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
    func stream(
        _ request: HTTPRequest, channel: @escaping @LoopActor (Session) -> StateChannel
    ) throws(HTTPError) -> HTTPHandlerResult {
        let session = try session(request)
        let format = try Self.streamFormat(request)
        let lastEventID = Self.lastEventID(request).flatMap { Int($0) }
        let target = channel(session)
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

    static func commandDisabled(_ error: CommandDisabled) -> HTTPError {
        HTTPError(status: 409, code: "command_disabled", message: error.reason)
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
