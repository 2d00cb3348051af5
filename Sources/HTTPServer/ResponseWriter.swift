import CLibevent
import CLibeventShims
import EventLoop

#if canImport(Glibc)
import Glibc
#endif

/// Writes complete responses and starts stream replies on evhttp requests.
@LoopActor
final class ResponseWriter {
    /// A reusable evbuffer for building replies; evhttp moves its contents out on every send (event streams
    /// build their chunks in it too).
    let scratchBuffer: OpaquePointer
    /// Headers every response and stream carries (``HTTPServerConfiguration/commonHeaders``).
    var commonHeaders: [HTTPHeader] = [] {
        didSet { foldCommonHeaders() }
    }
    /// The `Cache-Control` of a response that sets none itself (not of event streams, which say `no-cache`).
    var defaultCacheControl: String? {
        didSet { foldCommonHeaders() }
    }
    /// ``commonHeaders`` folded once, when they all fold.
    private var commonBlock: FoldedHeaders.Block? = FoldedHeaders.Block()
    /// ``commonHeaders`` and the ``defaultCacheControl`` folded once, when they all fold.
    private var commonBlockWithCacheControl: FoldedHeaders.Block? = FoldedHeaders.Block()

    private func foldCommonHeaders() {
        commonBlock = FoldedHeaders.block(commonHeaders)
        let cacheControl = defaultCacheControl.map { [HTTPHeader("Cache-Control", $0)] } ?? []
        commonBlockWithCacheControl = FoldedHeaders.block(commonHeaders + cacheControl)
    }
    /// The header lines of the reply being written that evhttp never reads, added to its list as one entry.
    private let folded = FoldedHeaders()

    init() {
        scratchBuffer = evbuffer_new()
    }

    isolated deinit {
        evbuffer_free(scratchBuffer)
    }

    /// Sends `response` with the `X-Request-ID` header. The connection closes after it when `closing` is set,
    /// and after a `HEAD` or `TRACE` request that announced a body.
    func send(_ response: HTTPResponse, to raw: OpaquePointer, requestID: String, method: HTTPMethod?, closing: Bool) {
        let headers = evhttp_request_get_output_headers(raw)
        let hasBody = vmh_evhttp_reply_has_body(raw, Int32(response.status)) != 0
        // NB: first: evhttp looks for it by name before it formats a length itself, and finds it at once.
        if hasBody { folded.addContentLength(response.body.count, of: raw) }
        var setsCacheControl = false
        for header in response.headers {
            folded.add(header.name, header.value, else: headers)
            // NB: a length check first: most responses set no header of 13 characters.
            if header.name.utf8.count == 13 && Self.isCacheControl(header.name) { setsCacheControl = true }
        }
        // NB: what evhttp added itself when it had a default (the server gives it none: evhttp would look for
        // the `Content-Type` by name).
        if hasBody && !folded.hasContentType { folded.add("Content-Type", "application/json", else: headers) }
        folded.add("X-Request-ID", requestID, else: headers)
        addCommonHeaders(to: headers, cacheControl: !setsCacheControl)
        folded.add(to: headers)
        addDate(to: headers)
        // NB: evhttp 2.1 never reads the body of a HEAD or TRACE request; the leftover bytes would be parsed as
        // the next request on this connection (request smuggling). Close it instead.
        if closing || ((method == .head || method == .trace) && RequestHead.hasBody(raw)) {
            evhttp_add_header(headers, "Connection", "close")
        }
        if hasBody && !response.body.isEmpty { Self.append(response.body, to: scratchBuffer) }
        let reason = Self.reason(response.status)
        evhttp_send_reply(
            raw, Int32(response.status), UnsafeRawPointer(reason.utf8Start).assumingMemoryBound(to: CChar.self),
            scratchBuffer)
    }

    /// Starts a `200` chunked `text/event-stream` reply (gzip-encoded when `compressed`; `Vary` when the
    /// encoding depends on the request).
    func startEventStream(on raw: OpaquePointer, requestID: String, compressed: Bool, vary: Bool, closing: Bool) {
        let headers = evhttp_request_get_output_headers(raw)
        folded.add("Content-Type", "text/event-stream", else: headers)
        folded.add("Cache-Control", "no-cache", else: headers)
        folded.add("X-Accel-Buffering", "no", else: headers)
        if compressed {
            folded.add("Content-Encoding", "gzip", else: headers)
        }
        if vary {
            folded.add("Vary", "Accept-Encoding", else: headers)
        }
        folded.add("X-Request-ID", requestID, else: headers)
        addCommonHeaders(to: headers)
        folded.add(to: headers)
        addDate(to: headers)
        if closing {
            evhttp_add_header(headers, "Connection", "close")
        }
        evhttp_send_reply_start(raw, 200, "OK")
        Self.dropRequestHead(of: raw, closing: closing)
    }

    /// Frees what a request whose stream has started keeps of its head. A stream holds its request for as long
    /// as it is open (hours), and its header lines are already in the output buffer: the lists would keep ~100
    /// bytes per header, ~1 KB per stream, and the target, its parsed parts, the peer's address, the reason
    /// phrase and the request's two (empty) body buffers ~500 bytes more, that nothing reads again. What evhttp
    /// does read again when the reply ends stays: whether the connection closes after it (`Connection`, in the
    /// request and the reply).
    nonisolated private static func dropRequestHead(of raw: OpaquePointer, closing: Bool) {
        vmh_evhttp_request_drop_unread(raw)
        if let input = evhttp_request_get_input_headers(raw) {
            let connection = evhttp_find_header(input, "Connection").map { String(cString: $0) }
            evhttp_clear_headers(input)
            if let connection { evhttp_add_header(input, "Connection", connection) }
        }
        if let output = evhttp_request_get_output_headers(raw) {
            evhttp_clear_headers(output)
            if closing { evhttp_add_header(output, "Connection", "close") }
        }
    }

    /// Adds the header `name: value` as an entry of its own. NB: `withCString` rather than passing the
    /// `String`: a short (inline) string passed to a C parameter is copied to the heap first.
    /// NB: the helpers that hand closures to `withCString` and `withUnsafeBytes` are `nonisolated`: a closure
    /// isolated to the loop checks its executor each time it runs (docs/performance.md, "Receipts").
    nonisolated private static func add(
        _ name: StaticString, _ value: String, to headers: UnsafeMutablePointer<evkeyvalq>?
    ) {
        let cName = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        value.withCString { _ = evhttp_add_header(headers, cName, $0) }
    }

    /// Appends `bytes` to `buffer`.
    nonisolated static func append(_ bytes: [UInt8], to buffer: OpaquePointer) {
        bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
    }

    /// Adds ``commonHeaders`` to the folded lines (those that cannot fold to `headers`), and the
    /// ``defaultCacheControl`` when `cacheControl`.
    private func addCommonHeaders(to headers: UnsafeMutablePointer<evkeyvalq>?, cacheControl: Bool = false) {
        let withCacheControl = cacheControl && defaultCacheControl != nil
        if let block = withCacheControl ? commonBlockWithCacheControl : commonBlock {
            folded.add(block)
            return
        }
        for header in commonHeaders { folded.add(header.name, header.value, else: headers) }
        if withCacheControl, let defaultCacheControl { folded.add("Cache-Control", defaultCacheControl, else: headers) }
    }

    /// Whether `name` is `Cache-Control`, in any case.
    nonisolated private static func isCacheControl(_ name: String) -> Bool {
        name.utf8.elementsEqual("cache-control".utf8) { $0 | 0x20 == $1 | 0x20 }
    }

    /// The `Date` header's value and the second it was formatted for: formatted once a second rather than by
    /// evhttp for every response (`gmtime` and `snprintf` each time).
    private var date: (second: Int, value: String) = (-1, "")

    /// Adds `Date` (evhttp adds none when one is there).
    private func addDate(to headers: UnsafeMutablePointer<evkeyvalq>?) {
        let now = time(nil)
        if now != date.second {
            date = (now, HTTPDate.format(now))
        }
        Self.add("Date", date.value, to: headers)
    }

    /// The reason phrase of a status line (a static string: no conversion on the way to C).
    static func reason(_ status: Int) -> StaticString {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Payload Too Large"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status"
        }
    }
}
