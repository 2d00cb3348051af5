import CCurl
import CCurlShims
import EventLoop

/// One easy handle in flight and the task waiting for it.
@LoopActor
final class Transfer {
    let id: Int
    let easy: UnsafeMutableRawPointer
    let maxResponseBytes: Int
    var body: [UInt8] = []
    var headers: [(name: String, value: String)] = []
    var exceededLimit = false
    var continuation: CheckedContinuation<HTTPClientResponse, any Error>?
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    /// curl's human-readable error detail (CURLOPT_ERRORBUFFER).
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(id: Int, easy: UnsafeMutableRawPointer, maxResponseBytes: Int) {
        self.id = id
        self.easy = easy
        self.maxResponseBytes = maxResponseBytes
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    isolated deinit {
        curl_slist_free_all(requestHeaders)
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
    }

    var errorDetail: String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? "no detail" : detail
    }

    /// Appends body bytes; false when the limit is exceeded (curl then aborts with a write error).
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= maxResponseBytes else {
            exceededLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Records one raw header line (`Name: value\r\n`); a status line resets (redirects, 100-continue).
    func appendHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        guard let line = String(validating: bytes, as: UTF8.self) else { return }
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = line[line.index(after: colon)...].trimmingCharacters()
        headers.append((name, value))
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" || last == "\n" || last == "\r\n" {
            slice = slice.dropLast()
        }
        return String(slice)
    }
}
