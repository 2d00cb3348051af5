import CCurl
import CCurlShims
import CLibevent
import EventLoop

/// An asynchronous HTTP client on libcurl's multi-socket API, driven by the loop (the hiperfifo pattern).
///
/// - Requests are `async`; cancelling the calling task removes the easy handle at once, so the upstream
///   sees its connection close.
/// - One `CURLM` keeps connections and DNS results for reuse; at most
///   ``HTTPClientConfiguration/maxConnectionsPerHost`` connections per host, further requests queue.
/// - Failures without a response throw ``HTTPClientError``; HTTP error statuses are returned as responses.
@LoopActor
public final class HTTPClient {
    /// The limits in effect.
    public let configuration: HTTPClientConfiguration
    /// The multi handle, created with the first request: initialising libcurl (and TLS) costs ~2.4 MB of
    /// resident memory that a server whose upstreams are never called need not pay.
    private var multiHandle: UnsafeMutableRawPointer?
    private var transfers: [Int: Transfer] = [:]
    private var nextTransferID = 0
    private var timer: LoopTimer?
    private var isInsideCurl = false

    /// Number of transfers in flight (queued or running).
    public var activeTransfers: Int { transfers.count }

    /// Creates a client with its own connection pool.
    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) {
        self.configuration = configuration
        timer = LoopTimer { [weak self] in self?.timerFired() }
    }

    /// The multi handle, created (with libcurl's global state) on first use; nil only when out of memory.
    private func ensureMulti() -> UnsafeMutableRawPointer? {
        if let multiHandle { return multiHandle }
        Self.initializeCurlOnce
        guard let multi = curl_multi_init() else { return nil }
        multiHandle = multi
        let context = Unmanaged.passUnretained(self).toOpaque()
        vmh_curl_multi_setopt_pointer(multi, CURLMOPT_SOCKETDATA, context)
        vmh_curl_multi_setopt_pointer(multi, CURLMOPT_TIMERDATA, context)
        vmh_curl_multi_setopt_socket_function(multi) { _, socket, what, context, socketContext in
            guard let context else { return 0 }
            let client = Unmanaged<HTTPClient>.fromOpaque(context).takeUnretainedValue()
            LoopActor.assumeIsolated { client.curlSocket(socket, what: what, assigned: socketContext) }
            return 0
        }
        vmh_curl_multi_setopt_timer_function(multi) { _, timeoutMilliseconds, context in
            guard let context else { return 0 }
            let client = Unmanaged<HTTPClient>.fromOpaque(context).takeUnretainedValue()
            LoopActor.assumeIsolated { client.curlTimer(milliseconds: timeoutMilliseconds) }
            return 0
        }
        vmh_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnectionsPerHost)
        vmh_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxCachedConnections)
        return multi
    }

    isolated deinit {
        guard let multiHandle else { return }
        for transfer in transfers.values {
            curl_multi_remove_handle(multiHandle, transfer.easy)
            transfer.continuation?.resume(throwing: HTTPClientError.cancelled)
        }
        curl_multi_cleanup(multiHandle)
    }

    private static let initializeCurlOnce: Void = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Performs a request.
    /// - Returns: the response, whatever its status.
    /// - Throws: ``HTTPClientError`` when no response arrived (including `.cancelled`).
    public func execute(_ request: HTTPClientRequest) async throws(HTTPClientError) -> HTTPClientResponse {
        if Task.isCancelled { throw .cancelled }
        guard let multi = ensureMulti() else { throw .transport("curl_multi_init failed") }
        let transfer = try makeTransfer(request)
        let id = transfer.id
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    transfer.continuation = continuation
                    transfers[id] = transfer
                    let result = curl_multi_add_handle(multi, transfer.easy)
                    if result != CURLM_OK {
                        transfers[id] = nil
                        transfer.continuation = nil
                        let message = String(cString: curl_multi_strerror(result))
                        continuation.resume(throwing: HTTPClientError.transport(message))
                    }
                }
            } onCancel: { [weak self] in
                if EventLoop.shared.isOnLoopThread {
                    LoopActor.assumeIsolated { self?.cancel(id) }
                } else {
                    Task { @LoopActor in self?.cancel(id) }
                }
            }
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw .transport("\(error)")
        }
    }

    private func makeTransfer(_ request: HTTPClientRequest) throws(HTTPClientError) -> Transfer {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw .invalidURL(Self.withoutQuery(request.url))
        }
        guard let easy = curl_easy_init() else { throw .transport("curl_easy_init failed") }
        let transfer = Transfer(id: nextTransferID, easy: easy, maxResponseBytes: configuration.maxResponseBytes)
        nextTransferID += 1
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        var ok = vmh_curl_easy_setopt_string(easy, CURLOPT_URL, request.url) == CURLE_OK
        vmh_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        vmh_curl_easy_setopt_long(easy, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS))
        let timeout = request.timeout ?? configuration.requestTimeout
        vmh_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        vmh_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        vmh_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        vmh_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        vmh_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        vmh_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        vmh_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        vmh_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
        vmh_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBytes))
        vmh_curl_easy_setopt_write_function(easy) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            let accepted = LoopActor.assumeIsolated {
                transfer.append(UnsafeRawBufferPointer(start: data, count: length))
            }
            return accepted ? length : 0
        }
        vmh_curl_easy_setopt_header_function(easy) { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            LoopActor.assumeIsolated { transfer.appendHeaderLine(UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        }
        for header in request.headers {
            transfer.requestHeaders = curl_slist_append(transfer.requestHeaders, "\(header.name): \(header.value)")
        }
        if let body = request.body {
            vmh_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            ok =
                ok
                && body.withUnsafeBytes { bytes in
                    vmh_curl_easy_setopt_pointer(
                        easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                } == CURLE_OK
        }
        if transfer.requestHeaders != nil {
            vmh_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.requestHeaders)
        }
        guard ok else { throw .invalidURL(Self.withoutQuery(request.url)) }
        return transfer
    }

    /// The URL without its query, for error messages: queries carry API keys.
    static func withoutQuery(_ url: String) -> String {
        guard let question = url.firstIndex(of: "?") else { return url }
        return String(url[..<question]) + "?…"
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }

    // MARK: Cancellation

    private func cancel(_ id: Int) {
        guard let transfer = transfers[id] else { return }
        if isInsideCurl {
            // NB: curl forbids removing handles from inside its callbacks; finish on the next loop turn.
            Task { @LoopActor [weak self] in self?.cancel(id) }
            return
        }
        transfers[id] = nil
        if let multiHandle { curl_multi_remove_handle(multiHandle, transfer.easy) }
        transfer.continuation?.resume(throwing: HTTPClientError.cancelled)
        transfer.continuation = nil
    }

    // MARK: curl multi callbacks

    private func curlSocket(_ socket: curl_socket_t, what: Int32, assigned: UnsafeMutableRawPointer?) {
        guard let multi = multiHandle else { return }
        if what == vmh_curl_poll_remove {
            if let assigned {
                let watch = Unmanaged<SocketWatch>.fromOpaque(assigned).takeRetainedValue()
                watch.stop()
            }
            curl_multi_assign(multi, socket, nil)
            return
        }
        let watch: SocketWatch
        if let assigned {
            watch = Unmanaged<SocketWatch>.fromOpaque(assigned).takeUnretainedValue()
        } else {
            watch = SocketWatch(socket: socket, client: self)
            curl_multi_assign(multi, socket, Unmanaged.passRetained(watch).toOpaque())
        }
        watch.update(what: what)
    }

    private func curlTimer(milliseconds: Int) {
        // NB: never call back into curl from here; the loop timer does it.
        if milliseconds < 0 {
            timer?.cancel()
        } else {
            timer?.schedule(after: .milliseconds(milliseconds))
        }
    }

    private func timerFired() {
        drive(socket: vmh_curl_socket_timeout, flags: 0)
    }

    func socketReady(_ socket: Int32, events: Int16) {
        var flags: Int32 = 0
        if events & Int16(EV_READ) != 0 { flags |= vmh_curl_cselect_in }
        if events & Int16(EV_WRITE) != 0 { flags |= vmh_curl_cselect_out }
        drive(socket: socket, flags: flags)
    }

    private func drive(socket: curl_socket_t, flags: Int32) {
        guard let multi = multiHandle else { return }
        var running: Int32 = 0
        isInsideCurl = true
        curl_multi_socket_action(multi, socket, flags, &running)
        isInsideCurl = false
        collectFinished()
    }

    private func collectFinished() {
        guard let multi = multiHandle else { return }
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // NB: copy what we need before remove_handle invalidates the message.
            let result = vmh_curl_msg_result(message)
            var privatePointer: UnsafeMutableRawPointer?
            vmh_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(privatePointer).takeUnretainedValue()
            transfers[transfer.id] = nil
            curl_multi_remove_handle(multi, easy)
            complete(transfer, result: result)
        }
    }

    private func complete(_ transfer: Transfer, result: CURLcode) {
        guard let continuation = transfer.continuation else { return }
        transfer.continuation = nil
        if result == CURLE_OK {
            var status = 0
            vmh_curl_easy_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
            continuation.resume(
                returning: HTTPClientResponse(status: status, headers: transfer.headers, body: transfer.body)
            )
            return
        }
        let detail = transfer.errorDetail
        let error: HTTPClientError
        switch result {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            error = .resolveFailed(detail)
        case CURLE_COULDNT_CONNECT:
            error = .connectFailed(detail)
        case CURLE_OPERATION_TIMEDOUT:
            error = .timedOut(detail)
        case CURLE_FILESIZE_EXCEEDED:
            error = .responseTooLarge(limit: configuration.maxResponseBytes)
        case CURLE_WRITE_ERROR where transfer.exceededLimit:
            error = .responseTooLarge(limit: configuration.maxResponseBytes)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            error = .invalidURL(detail)
        default:
            error = .transport("\(String(cString: curl_easy_strerror(result))): \(detail)")
        }
        continuation.resume(throwing: error)
    }
}
