import CLibevent
import CLibeventShims
import EventLoop
import EventStreams

/// One open `text/event-stream` reply on an evhttp connection.
///
/// Writes are bounded: while more than `maxPendingBytes` wait unsent in the connection's output buffer,
/// ``send(_:)`` refuses, and the owner decides what the slow reader gets (a fresh snapshot on ``onDrain``,
/// or ``end()``). The server keeps every open stream alive until it closes, writes keepalive comments,
/// and ends all streams at shutdown.
@LoopActor
public final class ServerSentEventStream: EventSink {
    // NB: the fields a write reads come first, the callbacks last: with thousands of streams each write
    // touches the object from cold, and the fields it needs then share its first cache line.

    /// The evhttp request of the stream. NB: the parsed `HTTPRequest` is not kept: with thousands of open
    /// streams its path, parameters and query would be memory held for nothing.
    private let raw: OpaquePointer
    /// The evhttp connection carrying the stream.
    let connection: OpaquePointer
    /// The connection's record, whose output the server writes at the end of the loop turn: the stream's bytes go
    /// straight into that output. Nil when they go through evhttp, written when the socket is next writable: a
    /// connection the server keeps no record of, and a `HEAD` request's stream, which evhttp sends no body for.
    private let record: ConnectionRecord?
    /// The connection's output buffer (its bufferevent's, fixed for the connection's life): what a write checks
    /// first, without going through the connection and its bufferevent every time.
    private let output: OpaquePointer?
    /// Whether the reply is chunked (HTTP/1.1), known once the reply started: asked at the first write.
    private var chunked: Bool?
    /// NB: unowned, not weak: a weak reference would give the server a side table, which every retain of it
    /// (every request, every write) then goes through. Reached only while the stream is open; a server that
    /// goes away first closes its streams (``serverWentAway()``).
    private unowned let server: HTTPServer
    /// Refuse writes while more than this many bytes wait unsent.
    public let maxPendingBytes: Int
    /// Whether bytes can still be written.
    public private(set) var isOpen = true
    /// A write was refused: every write asks for the drain callback until it comes.
    private var drainWanted = false
    /// A write asked for the drain callback and it has not come yet. NB: evhttp keeps the callback set until a
    /// write through it replaces it, and the writes that go straight into the output do not: without this, it
    /// would come again at every later drain.
    private var drainAsked = false
    /// The gzip state of a compressed stream (the client sent `Accept-Encoding: gzip`); nil for plain text.
    private var encoder: GzipStreamEncoder?
    /// Called once when the stream ends, whichever side ended it.
    public var onClose: (@LoopActor () -> Void)?
    /// Called when the connection's output buffer has drained completely after a write that left it more
    /// than half full (so always after a refused write, once the reader catches up).
    public var onDrain: (@LoopActor () -> Void)?

    init(
        raw: OpaquePointer, request: HTTPRequest, connection: OpaquePointer, server: HTTPServer, maxPendingBytes: Int,
        compressed: Bool
    ) {
        self.raw = raw
        self.encoder = compressed ? GzipStreamEncoder() : nil
        self.connection = connection
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            output = bufferevent_get_output(bufferevent)
        } else {
            output = nil
        }
        // NB: decided once: a write then checks one optional, not the output and the request's method each time.
        record = output != nil && request.method != .head ? request.connection : nil
        self.server = server
        self.maxPendingBytes = maxPendingBytes
    }

    /// Bytes written but not yet accepted by the client's socket.
    public var pendingBytes: Int {
        guard isOpen, let output else { return 0 }
        return evbuffer_get_length(output)
    }

    /// What the stream's request still holds of its head while the stream is open: its target, the names of the
    /// request's and the reply's header lines kept (the reply has started: only `Connection` is read again), and
    /// whether it still has its body and reply buffers. For tests of what a long-lived stream keeps; nil once the
    /// stream has ended.
    package var retainedRequestHead:
        (target: String?, requestHeaders: [String], replyHeaders: [String], hasBuffers: Bool)?
    {
        guard isOpen else { return nil }
        func names(_ list: UnsafeMutablePointer<evkeyvalq>?) -> [String] {
            var names: [String] = []
            var entry = list?.pointee.tqh_first
            while let current = entry {
                names.append(String(cString: current.pointee.key))
                entry = current.pointee.next.tqe_next
            }
            return names
        }
        return (
            evhttp_request_get_uri(raw).map { String(cString: $0) },
            names(evhttp_request_get_input_headers(raw)), names(evhttp_request_get_output_headers(raw)),
            evhttp_request_get_input_buffer(raw) != nil || evhttp_request_get_output_buffer(raw) != nil
        )
    }

    /// Whether the socket's write event is enabled on the stream's connection (evhttp enables it for the bytes
    /// it queues; the server's writes at the end of a loop turn leave it disabled). For tests; false once closed.
    package var writeEventEnabled: Bool {
        guard isOpen, let bufferevent = evhttp_connection_get_bufferevent(connection) else { return false }
        return bufferevent_get_enabled(bufferevent) & Int16(EV_WRITE) != 0
    }

    /// Writes raw event bytes (already framed as SSE), compressing them for a gzip stream. Returns false
    /// when closed or backed up.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        guard let pending = admitted() else { return false }
        guard encoder != nil else { return enqueue(bytes, pending: pending) }
        return enqueue(Self.compress(bytes), pending: pending)
    }

    /// Writes bytes shared by many streams; a gzip stream writes their segment, compressed once for all.
    /// Returns false when closed or backed up.
    @discardableResult
    public func send(_ chunk: ServerSentEventChunk) -> Bool {
        guard let pending = admitted() else { return false }
        guard encoder != nil else { return enqueue(chunk.bytes, pending: pending) }
        return enqueue(chunk.gzipSegment, pending: pending)
    }

    /// The bytes waiting unsent when a write may go (checked before compressing anything); nil when the stream
    /// is closed or backed up, and then the drain is wanted.
    private func admitted() -> Int? {
        guard isOpen else { return nil }
        let pending = pendingBytes
        guard pending <= maxPendingBytes else {
            drainWanted = true
            return nil
        }
        return pending
    }

    /// Queues a gzip segment, with the member header in front of the first one.
    private func enqueue(_ segment: GzipSegment, pending: Int) -> Bool {
        guard var encoder else { return false }
        let header = encoder.record(segment)
        self.encoder = encoder
        let scratch = server.scratchBuffer
        let count = header.count + segment.deflated.count
        let framed = Self.beginChunk(scratch, size: count, chunked: isChunked)
        // NB: straight into the scratch buffer: the shared segment is never copied per subscriber.
        ResponseWriter.append(header, to: scratch)
        ResponseWriter.append(segment.deflated, to: scratch)
        return flush(scratch, adding: count, pending: pending, framed: framed)
    }

    /// Queues bytes as they go on the wire.
    private func enqueue(_ bytes: [UInt8], pending: Int) -> Bool {
        let scratch = server.scratchBuffer
        let framed = Self.beginChunk(scratch, size: bytes.count, chunked: isChunked)
        ResponseWriter.append(bytes, to: scratch)
        return flush(scratch, adding: bytes.count, pending: pending, framed: framed)
    }

    /// Whether the reply is chunked: evhttp decides when the reply starts, before the first write.
    private var isChunked: Bool {
        if let chunked { return chunked }
        let chunked = vmh_evhttp_request_is_chunked(raw) != 0
        self.chunked = chunked
        return chunked
    }

    /// `bytes` as a gzip segment of their own.
    private static func compress(_ bytes: [UInt8]) -> GzipSegment {
        bytes.withUnsafeBytes { GzipSegment(compressing: $0) }
    }

    /// Writes the size line of a chunk of `size` bytes into `scratch` when the reply is chunked (HTTP/1.1),
    /// instead of evhttp's printf; returns whether it did. An empty chunk would end the reply: it is not framed.
    /// NB: `nonisolated`: the closure inside would otherwise check its executor on every call.
    nonisolated private static func beginChunk(_ scratch: OpaquePointer, size: Int, chunked: Bool) -> Bool {
        guard size > 0, chunked else { return false }
        // Up to 16 hex digits and CRLF, written from the end.
        var line: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &line) { buffer in
            guard let base = buffer.baseAddress else { return }
            var start = buffer.count - 2
            buffer[start] = UInt8(ascii: "\r")
            buffer[start + 1] = UInt8(ascii: "\n")
            var value = UInt(size)
            repeat {
                start -= 1
                let digit = UInt8(truncatingIfNeeded: value & 15)
                buffer[start] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                value >>= 4
            } while value != 0
            evbuffer_add(scratch, base + start, buffer.count - start)
        }
        return true
    }

    /// Sends what `scratch` holds as one chunk (`framed`: its size line is already in front of it).
    private func flush(_ scratch: OpaquePointer, adding count: Int, pending: Int, framed: Bool) -> Bool {
        if framed { evbuffer_add(scratch, "\r\n", 2) }
        // NB: measured: a drain callback on every write cost ~10% CPU per delivery in the fan-out benchmark.
        // Only writes that leave the connection more than half full ask to hear about the drain; a refused
        // write always follows such a write, so `onDrain` still fires once the slow reader catches up.
        // NB: evhttp keeps one write callback per connection and a plain chunk through it clears it: once a write
        // was refused, every write must ask again, or a keepalive in between would lose the reader's resync.
        let callback: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?
        var context: UnsafeMutableRawPointer?
        if drainWanted || pending + count > maxPendingBytes / 2 {
            drainAsked = true
            context = Unmanaged.passUnretained(self).toOpaque()
            callback = { _, context in
                guard let context else { return }
                let stream = Unmanaged<ServerSentEventStream>.fromOpaque(context).takeUnretainedValue()
                LoopActor.assumeIsolated { stream.drained() }
            }
        } else {
            callback = nil
            // NB: straight into the connection's output, written with the turn's other writes (``OutputFlusher``):
            // without evhttp, which would enable the socket's write event again and set its write callback
            // (one that asked for the drain stays set, and is still owed).
            if let record, let output {
                evbuffer_add_buffer(output, scratch)
                server.flusher.schedule(record)
                return true
            }
        }
        if framed {
            vmh_evhttp_send_framed_chunk(raw, scratch, callback, context)
        } else {
            evhttp_send_reply_chunk_with_cb(raw, scratch, callback, context)
        }
        // NB: evhttp leaves the bytes when it sends no body (a HEAD request): they must not reach the next stream.
        let left = evbuffer_get_length(scratch)
        if left > 0 { evbuffer_drain(scratch, left) }
        if let record { server.flusher.schedule(record) }
        return true
    }

    /// Ends the stream cleanly (final chunk, after the gzip trailer); the connection may serve further
    /// requests.
    public func end() {
        guard isOpen else { return }
        if var encoder {
            let trailer = encoder.finish()
            self.encoder = encoder
            ResponseWriter.append(trailer, to: server.scratchBuffer)
            evhttp_send_reply_chunk(raw, server.scratchBuffer)
        }
        isOpen = false
        evhttp_send_reply_end(raw)
        finish()
    }

    /// The client went away: evhttp has detached the request, which `send_reply_end` now frees.
    func clientClosed() {
        guard isOpen else { return }
        isOpen = false
        evhttp_send_reply_end(raw)
        finish()
    }

    private func drained() {
        guard drainAsked else { return }
        drainAsked = false
        drainWanted = false
        guard isOpen else { return }
        onDrain?()
    }

    private func finish() {
        let onClose = self.onClose
        self.onClose = nil
        self.onDrain = nil
        server.streamEnded(self)
        onClose?()
    }

    /// The server is going away while the stream's owner still holds it: the stream is closed from now on
    /// (evhttp frees the request with the server), without callbacks.
    func serverWentAway() {
        isOpen = false
        onClose = nil
        onDrain = nil
    }
}
