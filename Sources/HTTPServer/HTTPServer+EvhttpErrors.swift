import CLibevent
import CLibeventOverrides
import CLibeventShims
import EventLoop

/// The errors evhttp answers itself (`evhttp_send_error`, an HTML page): a head it cannot parse, a body over
/// ``HTTPServerConfiguration/maxBodySize`` (refused from its `Content-Length`, before it is read), a broken
/// chunk, an `Expect` it does not know. vmhost's `evhttp_send_error` (`CLibeventOverrides`, `send_error.c`) hands them to the
/// server of the request's connection, which answers with its configured error format and closes the
/// connection, as evhttp would have.
extension HTTPServer {
    /// Every started server, by its evhttp (the hook finds a request's server through its connection).
    private static var servers: [OpaquePointer: Unmanaged<HTTPServer>] = [:]

    /// Registers a started server (and the hook, once).
    static func register(_ http: OpaquePointer, _ server: HTTPServer) {
        if servers.isEmpty { vmh_set_send_error_hook(sendErrorHook) }
        servers[http] = Unmanaged.passUnretained(server)
    }

    /// Forgets a server before its evhttp is freed.
    static func unregister(_ http: OpaquePointer) {
        servers[http] = nil
    }

    /// Answers an error evhttp found before any handler ran; false when `raw`'s server is not known (evhttp's
    /// page goes then).
    fileprivate static func answerEvhttpError(_ raw: OpaquePointer, status: Int) -> Bool {
        guard let connection = evhttp_request_get_connection(raw), let http = evhttp_connection_get_server(connection),
            let server = servers[http]
        else { return false }
        server.takeUnretainedValue().answerEvhttpError(raw, status: status)
        return true
    }

    private func answerEvhttpError(_ raw: OpaquePointer, status: Int) {
        let started = configuration.clock.now
        vmh_evhttp_request_default_version(raw)
        // NB: counted from accept already; the close callback releases the count as soon as evhttp closes.
        _ = admit(raw)
        let error: HTTPError
        switch status {
        case 413:
            var tooLarge = HTTPError.bodyTooLarge(limit: configuration.maxBodySize)
            if vmh_evhttp_request_body_is_chunked(raw) != 0 {
                tooLarge.message += " (or its chunked framing is broken)"
            }
            error = tooLarge
        case 417:
            error = HTTPError(
                status: 417, code: .expectationFailed, message: "the only expectation understood is 100-continue")
        case 501:
            error = .methodNotImplemented
        default:
            var invalid = HTTPError.invalidRequest("the request head cannot be parsed")
            invalid.status = status
            error = invalid
        }
        let method = HTTPMethod(evhttp: evhttp_request_get_command(raw))
        let requestID = requestIDs.id(for: raw)
        writer.send(
            configuration.errorResponder.response(for: error), to: raw, requestID: requestID, method: method,
            closing: true)
        if let method { report("unmatched", method, error.status, requestID: requestID, started: started) }
    }
}

/// The hook `evhttp_send_error` calls. NB: outside the loop's isolation, as ``serverHandleRequest`` is.
private func sendErrorHook(_ request: OpaquePointer?, _ status: Int32) -> Int32 {
    guard let request else { return 0 }
    // NB: evhttp calls this on the loop thread with a request only the loop touches.
    nonisolated(unsafe) let raw = request
    return LoopActor.assumeIsolated { HTTPServer.answerEvhttpError(raw, status: Int(status)) ? 1 : 0 }
}
