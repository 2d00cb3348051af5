/// Reading from a ``TestSocket`` that a test writes raw requests to (bytes no well-behaved client sends).
extension TestSocket {
    /// Reads one whole response to a request written with ``write(_:)``.
    public func readResponse(method: String = "GET") throws -> TestHTTPResponse {
        try TestHTTPClient.readResponse(from: self, method: method)
    }

    /// Reads a response head only (`body` stays empty); the body is left for ``readSome()``.
    public func readResponseHead() throws -> TestHTTPResponse {
        let (status, headers) = try TestHTTPClient.readHead(from: self)
        return TestHTTPResponse(status: status, headers: headers, body: [])
    }

    /// What is buffered, or else the bytes of one read; empty at EOF (or reset). Throws on timeout.
    public func readSome() throws -> [UInt8] {
        let buffered = takeBuffered()
        if !buffered.isEmpty { return buffered }
        guard try fill() else { return [] }
        return takeBuffered()
    }
}

extension TestSocket {
    /// Whether the server closes the connection within `timeout` (bytes arriving meanwhile are skipped).
    /// Blocking: call it off the pool.
    public func closedByPeer(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isClosedByPeer(waitMilliseconds: 100) { return true }
        }
        return false
    }
}
