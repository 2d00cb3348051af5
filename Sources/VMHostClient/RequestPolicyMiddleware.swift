import Foundation
import HTTPTypes
import OpenAPIRuntime

/// What every request of the generated client goes through: the bearer token, one fresh token after a `401`, retries
/// of what is safe to send again, and the API's error answers turned into `VMHostClientError`.
///
/// NB: a command is safe to send again because it carries its `Idempotency-Key` (set by the caller in the request,
/// so every attempt has the same one): a repeat the server already ran answers the first answer again. Commands are
/// retried on a broken connection, `429` (after `Retry-After`), `502`, `503` and `504`. Creating a session has no
/// key: it is retried only on `502` and `503`, not after a broken connection (a session made twice is one left to
/// expire, not a command run twice), and not on `429 too_many_sessions`, whose wait is the caller's to decide. The
/// event stream is not retried here: its reconnection (`retry:`, `Last-Event-ID`) is `SessionEventStream`'s.
struct RequestPolicyMiddleware: ClientMiddleware {
    let token: (@Sendable () async throws -> String)?
    let configuration: VMHostClientConfiguration

    /// The operation whose failures `SessionEventStream` handles itself.
    static let streamOperation = Operations.StreamSession.id

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let retries = operationID != Self.streamOperation
        let isCreation = operationID == Operations.CreateSession.id
        var request = request
        var refreshedToken = false
        var attempt = 0
        if let token { request.headerFields[.authorization] = "Bearer \(try await token())" }
        while true {
            attempt += 1
            try Task.checkCancellation()
            let response: HTTPResponse
            let responseBody: HTTPBody?
            do {
                (response, responseBody) = try await next(request, body, baseURL)
            } catch {
                if Task.isCancelled { throw CancellationError() }
                guard retries, !isCreation, attempt < configuration.requestAttempts else {
                    throw VMHostClientError.transport(error)
                }
                try await configuration.sleep(
                    configuration.backoff(retry: attempt, base: configuration.initialRetryDelay, retryAfter: nil))
                continue
            }
            let status = response.status.code
            if (200..<400).contains(status) { return (response, responseBody) }
            let failure = try await Self.error(status: status, headers: response.headerFields, body: responseBody)
            if status == 401, let token, !refreshedToken {
                refreshedToken = true
                request.headerFields[.authorization] = "Bearer \(try await token())"
                continue
            }
            let retryAfter = Self.retryAfter(response.headerFields)
            let retryable = isCreation ? [502, 503] : [429, 502, 503, 504]
            guard retries, retryable.contains(status), attempt < configuration.requestAttempts else {
                throw failure
            }
            try await configuration.sleep(
                configuration.backoff(retry: attempt, base: configuration.initialRetryDelay, retryAfter: retryAfter))
        }
    }

    /// The `VMHostClientError` of an error answer, from its JSON envelope (read up to 64 KiB) when it has one.
    static func error(status: Int, headers: HTTPFields, body: HTTPBody?) async throws -> VMHostClientError {
        var code = "http_\(status)"
        var message = "HTTP \(status)"
        if let body {
            do {
                let bytes = try await Data(collecting: body, upTo: 64 * 1024)
                let envelope = try JSONDecoder().decode(Components.Schemas._Error.self, from: bytes)
                code = envelope.error.code
                message = envelope.error.message
            } catch {
                if Task.isCancelled { throw CancellationError() }
                // Not the API's envelope (a proxy's page): the status alone decides.
            }
        }
        return .answer(status: status, code: code, message: message, retryAfter: retryAfter(headers))
    }

    /// `Retry-After` in seconds (the form vmhost sends); an HTTP date is not used.
    static func retryAfter(_ headers: HTTPFields) -> Duration? {
        guard let value = headers[.retryAfter], let seconds = Int(value.trimmingCharacters(in: .whitespaces)),
            seconds >= 0
        else { return nil }
        return .seconds(seconds)
    }
}
