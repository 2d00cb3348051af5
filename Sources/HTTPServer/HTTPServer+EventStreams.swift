import CLibevent
import EventLoop
import EventStreams

/// Event streams: starting the chunked reply, keepalive comments, and the connection going back to
/// request/response use when a stream ends.
extension HTTPServer {
    /// The keepalive comment every open stream gets each ``HTTPServerConfiguration/keepaliveInterval``.
    private static let keepaliveComment = ServerSentEventChunk(Array(": keepalive\n\n".utf8))

    /// The buffer event streams build their chunks in.
    var scratchBuffer: OpaquePointer { writer.scratchBuffer }

    func startStream(
        for request: HTTPRequest, start: @LoopActor (any EventSink) -> Void
    ) {
        guard let raw = request.raw, let connection = evhttp_request_get_connection(raw) else { return }
        let compressed = configuration.compressStreams && acceptsGzip(request.header("Accept-Encoding"))
        if let record = request.connection { deadlines.streamStarted(on: record) }
        let stream = ServerSentEventStream(
            raw: raw, request: request, connection: connection, server: self,
            maxPendingBytes: configuration.streamMaxPendingBytes, compressed: compressed
        )
        streams[connection] = stream
        writer.startEventStream(
            on: raw, requestID: request.requestID, compressed: compressed,
            vary: configuration.compressStreams, closing: closesConnections
        )
        if let record = request.connection { flusher.schedule(record) }
        report(request.routePattern, request.method, 200, requestID: request.requestID, started: request.started)
        start(stream)
    }

    func streamEnded(_ stream: ServerSentEventStream) {
        if streams[stream.connection] === stream { streams[stream.connection] = nil }
        awaitNextRequest(on: stream.connection)
    }

    func startKeepalives() {
        // NB: unowned: the timer is the server's (stopped and released with it).
        let timer = LoopTimer(clock: configuration.clock, repeats: true) { [unowned self] in self.sendKeepalives() }
        timer.schedule(after: configuration.keepaliveInterval)
        keepaliveTimer = timer
    }

    func stopKeepalives() {
        keepaliveTimer?.cancel()
        keepaliveTimer = nil
    }

    private func sendKeepalives() {
        let comment = Self.keepaliveComment
        for stream in streams.values {
            stream.send(comment)
        }
    }
}

/// Whether an `Accept-Encoding` value admits gzip (RFC 9110: `gzip`, `x-gzip` or `*`, with a q above 0).
func acceptsGzip(_ header: String?) -> Bool {
    guard let header else { return false }
    var gzip: Bool?
    var star = false
    for element in header.httpFieldParts(separatedBy: ",") {
        let parts = element.httpFieldParts(separatedBy: ";")
        guard let name = parts.first?.lowercased() else { continue }
        var accepted = true
        for parameter in parts.dropFirst() {
            let pair = parameter.httpFieldParts(separatedBy: "=", maxSplits: 1)
            if pair.count == 2, pair[0].lowercased() == "q", let q = Double(pair[1]) { accepted = q > 0 }
        }
        switch name {
        case "gzip", "x-gzip": gzip = accepted
        case "*": star = accepted
        default: break
        }
    }
    return gzip ?? star
}
