import CLibevent
import EventLoop

/// Event streams: starting the chunked reply, keepalive comments, and the connection going back to
/// request/response use when a stream ends.
extension HTTPServer {
    /// The keepalive comment every open stream gets each ``HTTPServerConfiguration/keepaliveInterval``.
    private static let keepaliveComment = ServerSentEventChunk(Array(": keepalive\n\n".utf8))

    /// The buffer event streams build their chunks in.
    var scratchBuffer: OpaquePointer { writer.scratchBuffer }

    func startStream(
        for request: HTTPRequest, started: ContinuousClock.Instant, start: @LoopActor (ServerSentEventStream) -> Void
    ) {
        guard let connection = evhttp_request_get_connection(request.raw) else { return }
        let compressed = configuration.compressStreams && acceptsGzip(request.header("Accept-Encoding"))
        var timeout = timeval(configuration.streamTimeout)
        evhttp_connection_set_timeout_tv(connection, &timeout)
        let stream = ServerSentEventStream(
            request: request, connection: connection, server: self,
            maxPendingBytes: configuration.streamMaxPendingBytes, compressed: compressed
        )
        streams[connection] = stream
        writer.startEventStream(
            on: request.raw, requestID: request.requestID, compressed: compressed,
            vary: configuration.compressStreams, closing: closesConnections
        )
        report(request.routePattern, request.method, 200, requestID: request.requestID, started: started)
        start(stream)
    }

    func streamEnded(_ stream: ServerSentEventStream) {
        if streams[stream.connection] === stream { streams[stream.connection] = nil }
        awaitNextRequest(on: stream.connection)
    }

    func startKeepalives() {
        let timer = LoopTimer(repeats: true) { [weak self] in self?.sendKeepalives() }
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
