import Auth
import EventLoop
import HTTPServer
import JSON
import Journal
import Sessions
import ViewModels

/// The HTTP API of API.md, mapped onto sessions and view models.
///
/// NB: a class: every handler closure captures it, and a struct of six references was retained and released
/// field by field each time a handler made a closure of its own (docs/performance.md, "Receipts").
@LoopActor
final class Routes {
    let sessions: SessionStore
    let metrics: VMHostMetrics
    /// The application's clock: `Prefer: wait` waits on it.
    let clock: LoopClock
    let idleTimeoutSeconds: Int
    /// Open event streams (a multiplexed stream counts once) and open connections, for `/metrics`.
    let serverLoad: @LoopActor () -> (streams: Int, connections: Int)
    /// The journal's health and counters; nil without `--redis-url`.
    let journalStatus: @LoopActor () -> JournalStatus?
    /// Whether the node is draining (`SIGTERM`): `/healthz` answers 503 and session routes answer 503 with
    /// `Retry-After`, so the proxy sends them to another node, which takes the sessions over.
    let isDraining: @LoopActor () -> Bool
    /// Open event streams per session (`maxStreamsPerSession`); one more is `429 too_many_streams`.
    var maxStreamsPerSession = Int.max
    /// Whether `/metrics` is on the API's port; false with `--metrics-port`, where ``registerMetrics(on:)``
    /// serves it on a router of its own.
    let servesMetrics: Bool
    /// The embedded fake's origin when it serves the photos' images (the web client's CSP allows it), else nil.
    let fakeImageOrigin: String?
    /// Token checks of `/v1/` requests; nil without authentication (a session id is then the capability).
    let authentication: RequestAuthentication?

    init(
        sessions: SessionStore, metrics: VMHostMetrics, clock: LoopClock, idleTimeoutSeconds: Int,
        serverLoad: @escaping @LoopActor () -> (streams: Int, connections: Int),
        journalStatus: @escaping @LoopActor () -> JournalStatus?, isDraining: @escaping @LoopActor () -> Bool,
        servesMetrics: Bool = true, fakeImageOrigin: String? = nil, authentication: RequestAuthentication? = nil
    ) {
        self.servesMetrics = servesMetrics
        self.fakeImageOrigin = fakeImageOrigin
        self.authentication = authentication
        self.sessions = sessions
        self.metrics = metrics
        self.clock = clock
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.serverLoad = serverLoad
        self.journalStatus = journalStatus
        self.isDraining = isDraining
    }

    /// `GET /metrics`: Prometheus text (API.md, "Operations").
    func registerMetrics(on router: inout Router) {
        router.on(.get, "/metrics") { [self] _ in
            let load = serverLoad()
            metrics.update(sessions: sessions.count, streams: load.streams, connections: load.connections)
            metrics.updateHibernation(sessions.hibernationStatistics, hibernated: sessions.hibernatedCount)
            if let journal = journalStatus() {
                metrics.updateJournal(journal.statistics, available: journal.isAvailable, lag: journal.lag)
            }
            return .response(
                HTTPResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: metrics.exposition()
                )
            )
        }
    }

    func register(on router: inout Router) {
        WebClient.register(on: &router, fakeImageOrigin: fakeImageOrigin)
        OpenAPIDocument.register(on: &router)
        router.on(.get, "/healthz") { [self] _ in
            if isDraining() { return .response(.json(["status": "draining"], status: 503)) }
            guard let journal = journalStatus() else { return .response(.json(["status": "ok"])) }
            return .response(.json(["status": "ok", "journal": journal.isAvailable ? "ok" : "unavailable"]))
        }
        if servesMetrics { registerMetrics(on: &router) }

        router.on(.post, "/v1/sessions") { [self] request in
            let owner = try authentication?.authenticate(request).subjectKey
            if isDraining() { throw Self.draining }
            return try createSession(owner: owner)
        }
        router.on(.get, "/v1/sessions/:id") { [self] request in
            try withSession(request) { (session) throws(HTTPError) in .response(.json(session.json)) }
        }
        router.on(.delete, "/v1/sessions/:id") { [self] request in
            try withSession(request) { [self] (session) throws(HTTPError) in
                sessions.delete(session.id)
                return .response(.noContent)
            }
        }

        router.on(.get, "/v1/sessions/:id/events") { [self] request in
            try withSession(request) { [self] (session) throws(HTTPError) in try sessionStream(request, session) }
        }
        registerViewModels(on: &router)
    }

    private func createSession(owner: String?) throws(HTTPError) -> HTTPHandlerResult {
        if let owner, let authentication, sessions.count(ownedBy: owner) >= authentication.maxSessionsPerSubject {
            throw HTTPError(
                status: 429, code: .tooManySessions,
                message:
                    "this subject holds its maximum of \(authentication.maxSessionsPerSubject) sessions; delete one or "
                    + "let one expire",
                headers: [HTTPHeader("Retry-After", "60")]
            )
        }
        let session: Session
        do {
            session = try sessions.create(owner: owner)
        } catch {
            throw HTTPError(
                status: 429, code: .tooManySessions,
                message: "the server holds its maximum of \(error.limit) sessions; try again later",
                headers: [HTTPHeader("Retry-After", "5")]
            )
        }
        metrics.sessionCreated()
        let response = HTTPResponse.json(
            ["id": .string(session.id), "idleTimeout": .int(idleTimeoutSeconds)], status: 201,
            headers: [HTTPHeader("Location", "/v1/sessions/\(session.id)")]
        )
        return whenDurable(session) { response }
    }

    // MARK: View models

    /// `GET /v1/sessions/{id}/{name}`, `GET …/{name}/events` and `POST …/{name}/{command}` for every view model
    /// the sessions host: the routes come from the registrations, not from per-view-model code.
    private func registerViewModels(on router: inout Router) {
        for registration in sessions.viewModels {
            let name = registration.name
            router.on(.get, "/v1/sessions/:id/\(name)") { [self] request in
                try withSession(request) { [self] (session) throws(HTTPError) in
                    .response(.json(bytes: try slot(session, name, request).channel.stateBytes))
                }
            }
            router.on(.get, "/v1/sessions/:id/\(name)/events") { [self] request in
                try withSession(request) { [self] (session) throws(HTTPError) in
                    try stream(request, session, slot(session, name, request).channel)
                }
            }
            for command in registration.commands {
                router.on(.post, "/v1/sessions/:id/\(name)/\(command.name)") { [self] request in
                    try withSession(request) { [self] (session) throws(HTTPError) in
                        let slot = try slot(session, name, request)
                        let run = { [self] () throws(HTTPError) -> HTTPHandlerResult in
                            try perform(command, on: slot, session: session, request: request)
                        }
                        guard let key = request.header("Idempotency-Key") else { return try run() }
                        return try IdempotentCommand.answer(
                            key: key, command: "\(name)/\(command.name)", request: request,
                            keys: session.idempotencyKeys, run: run, durable: { session.whenDurable($0) }
                        )
                    }
                }
            }
        }
    }

    /// Decodes and runs one command: `200` with the state, or `202` (or the state after `Prefer: wait`).
    ///
    /// With the journal, the answer waits until what the command changed is durable: a version a client was
    /// told about is never lost.
    private func perform(
        _ command: ViewModelRegistration.Command, on slot: ViewModelSlot, session: Session, request: HTTPRequest
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
            return whenDurable(session) { .json(bytes: slot.channel.stateBytes) }
        case .accepted(let finished):
            return accepted(request, session: session, channel: slot.channel, until: finished)
        }
    }

    /// `response()` at once, or once everything the session changed is in the journal.
    func whenDurable(_ session: Session, _ response: @escaping @LoopActor () -> HTTPResponse) -> HTTPHandlerResult {
        guard session.journal?.holdsVersions == true, session.hasUnjournaledChanges else {
            return .response(response())
        }
        // NB: the answer's method, not a closure written here: its context is the answer (no allocation).
        return .callback(DurableAnswer(session: session, response: response).start)
    }

    /// The answer to a command whose session another process took over before its change was durable: the
    /// change is dropped; a retry reaches the owner.
    static var handedOver: HTTPResponse {
        var error = HTTPError.overloaded("the session moved to another node; retry the request")
        error.headers.append(HTTPHeader("Retry-After", "1"))
        return HTTPErrorResponder.apiJSON.response(for: error)
    }

    // MARK: Shared pieces

    /// The view model `name` of `session`.
    func slot(_ session: Session, _ name: String, _ request: HTTPRequest) throws(HTTPError) -> ViewModelSlot {
        guard let slot = session.slot(name) else { throw HTTPError.notFound(request.path) }
        return slot
    }

    /// Runs `body` with the session named by the path: from memory at once, or taken over from the journal
    /// first. `404 session_not_found` when there is none; `503` with `Retry-After` when the journal cannot
    /// answer now.
    func withSession(
        _ request: HTTPRequest, _ body: @escaping @LoopActor (Session) throws(HTTPError) -> HTTPHandlerResult
    ) throws(HTTPError) -> HTTPHandlerResult {
        let id = request.parameters["id"] ?? ""
        // With authentication, only the subject's own sessions exist for it: another's reads like a missing one.
        let owner = try authentication?.authenticate(request).subjectKey
        // NB: a draining node has released (or is releasing) its sessions: serving one would take it back.
        if isDraining() { throw Self.draining }
        if let session = sessions.session(id, ownedBy: owner) { return try body(session) }
        guard sessions.journal != nil, sessions.session(id, touching: false) == nil else {
            throw Self.sessionNotFound(id)
        }
        return .later { [sessions] in
            switch await sessions.sessionOrTakeOver(id) {
            case .found(let session):
                guard owner == nil || session.owner == owner else { throw Self.sessionNotFound(id) }
                return try body(session)
            case .notFound: throw Self.sessionNotFound(id)
            case .retryLater:
                var error = HTTPError.overloaded("the session cannot be loaded right now; try again shortly")
                error.headers.append(HTTPHeader("Retry-After", "1"))
                throw error
            }
        }
    }

    /// `202 {"version": N}`, or with `Prefer: wait=N` the state once the command finished (or N passed).
    func accepted(
        _ request: HTTPRequest, session: Session, channel: StateChannel,
        until finished: @escaping @LoopActor () async -> Void
    ) -> HTTPHandlerResult {
        guard let wait = PreferWait.seconds(in: request.header("Prefer")) else {
            return whenDurable(session) { .json(["version": .int(channel.version)], status: 202) }
        }
        return .deferred { [clock] in
            // NB: `finished` returns early when cancelled, so the timer (or shutdown) ends the wait.
            let waiter = Task { @LoopActor in await finished() }
            let timer = Task { @LoopActor in
                try? await clock.sleep(for: .seconds(wait))
                waiter.cancel()
            }
            await withTaskCancellationHandler {
                await waiter.value
            } onCancel: {
                waiter.cancel()
            }
            timer.cancel()
            await session.waitUntilDurable()
            guard !session.wasHandedOver else { return Self.handedOver }
            return .json(bytes: channel.stateBytes, headers: [HTTPHeader("Preference-Applied", "wait=\(wait)")])
        }
    }

    /// Opens an event stream on a channel of the session.
    func stream(
        _ request: HTTPRequest, _ session: Session, _ target: StateChannel
    ) throws(HTTPError)
        -> HTTPHandlerResult
    {
        let format = try Self.streamFormat(request)
        try admitStream(session)
        let lastEventID = Self.lastEventID(request).flatMap { Int($0) }
        let token = try authentication?.authenticate(request)
        return .stream { [authentication] stream in
            session.countStream(stream)
            target.subscribe(stream, format: format, lastEventID: lastEventID)
            if let token { authentication?.endAtExpiry(stream, of: token) }
        }
    }

    /// Opens the stream carrying every view model of the session.
    func sessionStream(_ request: HTTPRequest, _ session: Session) throws(HTTPError) -> HTTPHandlerResult {
        let format = try Self.streamFormat(request)
        try admitStream(session)
        let lastEventID = Self.lastEventID(request)
        let token = try authentication?.authenticate(request)
        return .stream { [authentication] stream in
            session.countStream(stream)
            session.subscribeAll(stream, format: format, resumeFrom: lastEventID)
            if let token { authentication?.endAtExpiry(stream, of: token) }
        }
    }

    /// `429 too_many_streams` when the session has ``maxStreamsPerSession`` streams open. A stream counts once
    /// whatever it carries: one view model's, or the multiplexed one of all of them.
    private func admitStream(_ session: Session) throws(HTTPError) {
        guard session.openStreams >= maxStreamsPerSession else { return }
        throw HTTPError(
            status: 429, code: .tooManyStreams,
            message: "the session has its maximum of \(maxStreamsPerSession) open event streams; close one first",
            headers: [HTTPHeader("Retry-After", "5")])
    }

    /// `?format=snapshot` or the default, patches.
    static func streamFormat(_ request: HTTPRequest) throws(HTTPError) -> StreamFormat {
        try StreamFormat(query: request.query["format"])
    }

    /// The `Last-Event-ID` header, or the `lastEventId` query parameter.
    static func lastEventID(_ request: HTTPRequest) -> String? {
        (request.header("Last-Event-ID") ?? request.query["lastEventId"]).map { $0.trimmingHTTPWhitespace() }
    }

    /// The answer of a draining node to session requests: another node will serve them.
    static var draining: HTTPError {
        var error = HTTPError.overloaded("this node is shutting down; retry the request")
        error.headers.append(HTTPHeader("Retry-After", "1"))
        return error
    }

    static func sessionNotFound(_ id: String) -> HTTPError {
        HTTPError(
            status: 404, code: .sessionNotFound,
            message: "no session '\(id)': it never existed, expired or was deleted")
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

/// What `/healthz` and `/metrics` show of the journal.
struct JournalStatus {
    var isAvailable: Bool
    var statistics: JournalStatistics
    var lag: Duration

    /// Configured but not (yet) running.
    static let unavailable = JournalStatus(isAvailable: false, statistics: JournalStatistics(), lag: .zero)

    @LoopActor
    init(journal: RedisJournal) {
        self.init(isAvailable: journal.isAvailable, statistics: journal.statistics, lag: journal.lag)
    }

    init(isAvailable: Bool, statistics: JournalStatistics, lag: Duration) {
        self.isAvailable = isAvailable
        self.statistics = statistics
        self.lag = lag
    }
}
