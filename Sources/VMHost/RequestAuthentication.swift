import Auth
import EventLoop
import EventStreams
import HTTPServer

/// Authentication of `/v1/` requests (API.md, "Authentication, limits and abuse"): the JWT from
/// `Authorization: Bearer` or the `vmhost_token` cookie, never from the query string, checked by the
/// ``TokenVerifier`` (which remembers accepted tokens: a request after the first with the same token is a lookup).
@LoopActor
final class RequestAuthentication {
    let verifier: TokenVerifier
    let maxSessionsPerSubject: Int

    /// The cookie `EventSource` clients carry the token in.
    static let cookieName = "vmhost_token"
    /// Query parameters that would carry a token: refused, since URLs end up in logs, histories and `Referer`s.
    static let queryNames = ["access_token", "token", "vmhost_token", "jwt"]
    /// The event a stream ends with when its token expires.
    static let reauthEvent = Array("event: reauth\ndata: {\"reason\": \"token_expired\"}\n\n".utf8)

    init(verifier: TokenVerifier, maxSessionsPerSubject: Int) {
        self.verifier = verifier
        self.maxSessionsPerSubject = maxSessionsPerSubject
    }

    /// The request's valid token, or `401 unauthorized`.
    func authenticate(_ request: HTTPRequest) throws(HTTPError) -> VerifiedToken {
        let query = request.query
        if !query.isEmpty {
            for name in Self.queryNames where query[name] != nil {
                throw Self.unauthorized(
                    "a token in the query string is refused: send it as Authorization: Bearer or the vmhost_token cookie"
                )
            }
        }
        // NB: an accepted token is remembered under the whole header it came in: a request that repeats the header
        // costs one lookup, without taking the header apart (an allocation and a copy of the token per step).
        if let header = request.header("Authorization") {
            if let known = verifier.remembered(header) { return known }
            if let token = Self.bearerToken(header) { return try verify(token, rememberingAs: header) }
        }
        if let header = request.header("Cookie") {
            if let known = verifier.remembered(header) { return known }
            if let token = Self.cookieToken(header) { return try verify(token, rememberingAs: header) }
        }
        throw Self.unauthorized("a bearer token is required (Authorization: Bearer or the vmhost_token cookie)")
    }

    private func verify(_ token: String, rememberingAs header: String) throws(HTTPError) -> VerifiedToken {
        do {
            return try verifier.verify(token, rememberingAs: header)
        } catch {
            throw Self.unauthorized("invalid token: \(error.description)")
        }
    }

    /// `401 unauthorized` with `WWW-Authenticate: Bearer error="invalid_token"`.
    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(
            status: 401, code: .unauthorized, message: message,
            headers: [HTTPHeader("WWW-Authenticate", #"Bearer error="invalid_token""#)]
        )
    }

    /// The token of `Authorization: Bearer <token>` (the scheme is case-insensitive).
    static func bearerToken(_ header: String?) -> String? {
        guard let header else { return nil }
        let value = header.trimmingHTTPWhitespace()
        guard value.utf8.count > 7, value.utf8.prefix(7).map({ $0 | 0x20 }) == Array("bearer ".utf8) else {
            return nil
        }
        let token = value.dropFirst(7).trimmingHTTPWhitespace()
        return token.isEmpty ? nil : String(token)
    }

    /// The value of the `vmhost_token` cookie in a `Cookie` header.
    static func cookieToken(_ header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingHTTPWhitespace() == cookieName else { continue }
            let value = parts[1].trimmingHTTPWhitespace()
            return value.isEmpty ? nil : String(value)
        }
        return nil
    }

    /// Ends `sink` with `event: reauth` when `token` expires (`exp` plus the leeway): one timer per stream, taken
    /// back when the stream closes first. A client reconnects with a fresh token and `Last-Event-ID`.
    func endAtExpiry(_ sink: any EventSink, of token: VerifiedToken) {
        let remaining = token.expiresAt + TokenVerifier.leeway - verifier.now()
        let timer = LoopTimer {
            sink.send(Self.reauthEvent)
            sink.end()
        }
        // NB: the sink holds the timer through its close callback and the timer the sink through its action; the
        // sink drops its callback when it closes, which ends the cycle either way.
        let previous = sink.onClose
        sink.onClose = {
            timer.cancel()
            previous?()
        }
        timer.schedule(after: .milliseconds(max(0, Int64(remaining * 1000))))
    }
}
