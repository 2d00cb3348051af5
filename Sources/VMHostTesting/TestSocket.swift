import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Errors of the test client.
public struct TestClientError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A blocking TCP connection to 127.0.0.1 with a receive timeout: the raw material of the test clients.
///
/// Deliberately independent of vmhost's own HTTP code, so tests check the server against a client we did
/// not build on the same library.
public final class TestSocket {
    /// The descriptor, -1 once closed. Atomic: ``shutdown()`` may read it on another thread than the reader
    /// that closes it.
    private let descriptor: Atomic<Int32>
    private var fd: Int32 { descriptor.load(ordering: .acquiring) }
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`.
    /// - Parameter receiveBufferBytes: a small `SO_RCVBUF` makes a slow reader's backlog build up on the
    ///   server side instead of in this socket.
    public init(port: Int, timeoutSeconds: Int = 10, receiveBufferBytes: Int? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        descriptor = Atomic(fd)
        guard fd >= 0 else { throw TestClientError("socket() failed") }
        if let receiveBufferBytes {
            var size = Int32(receiveBufferBytes)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            // NB: deinit runs for a class whose init throws after its properties are set: close here only
            // once, or a second close could hit a descriptor number another thread has been given since.
            Glibc.close(fd)
            descriptor.store(-1, ordering: .releasing)
            throw TestClientError("connect to port \(port) failed: errno \(error)")
        }
        setTimeout(seconds: timeoutSeconds)
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Sets the receive timeout.
    public func setTimeout(seconds: Int, microseconds: Int = 0) {
        var timeout = timeval(tv_sec: seconds, tv_usec: microseconds)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Changes `SO_RCVBUF` of the open connection: a client that stalled with a tiny buffer can catch up at
    /// full speed (the window scale was fixed at connect time from the system maximum, so larger windows work).
    public func setReceiveBufferSize(_ bytes: Int) {
        var size = Int32(clamping: bytes)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Writes all bytes.
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw TestClientError("send failed: errno \(errno)") }
            offset += written
        }
    }

    /// Writes a string.
    public func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// Ends the connection in both directions without closing the descriptor, so a read blocked on another
    /// thread returns (end of stream) instead of racing with ``close()``; the reader closes it afterwards.
    public func shutdown() {
        let descriptor = fd
        if descriptor >= 0 { _ = Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
    }

    /// Closes the connection abruptly.
    public func close() {
        let old = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if old >= 0 { Glibc.close(old) }
    }

    /// Reads more bytes into the buffer; false on EOF. Throws on timeout.
    @discardableResult
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 { return false }
        if errno == EAGAIN || errno == EWOULDBLOCK { throw TestClientError("timed out waiting for data") }
        if errno == ECONNRESET { return false }
        throw TestClientError("recv failed: errno \(errno)")
    }

    /// Everything buffered so far.
    func takeBuffered() -> [UInt8] {
        defer { buffer.removeAll() }
        return buffer
    }

    /// Reads one line ending in CRLF (or LF), without the terminator.
    public func readLine() throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw TestClientError("connection closed while reading a line") }
        }
    }

    /// Reads exactly `count` bytes.
    public func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw TestClientError("connection closed after \(buffer.count) of \(count) bytes") }
        }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads until the peer closes.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Whether the peer has closed (reads with a short timeout; consumes nothing but buffers data).
    public func isClosedByPeer(waitMilliseconds: Int = 100) -> Bool {
        setTimeout(seconds: 0, microseconds: waitMilliseconds * 1000)
        defer { setTimeout(seconds: 10) }
        do { return try !fill() } catch { return false }
    }
}
