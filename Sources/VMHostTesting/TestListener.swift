#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP listener on 127.0.0.1 for testing clients: accept a connection, read what arrives, see when
/// the peer closes. Blocking; use it from a thread that is not the event loop.
/// `@unchecked Sendable`: a test uses it from one task at a time (accepting on a blocking thread).
public final class TestListener: @unchecked Sendable {
    private let fd: Int32
    /// The bound port.
    public let port: Int

    /// Binds to a free loopback port.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw TestClientError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw TestClientError("bind/listen failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// Accepts one connection, waiting at most `timeoutSeconds`.
    public func accept(timeoutSeconds: Int = 10) throws -> AcceptedConnection {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeoutSeconds * 1000)) == 1 else {
            throw TestClientError("no connection arrived")
        }
        let client = Glibc.accept(fd, nil, nil)
        guard client >= 0 else { throw TestClientError("accept failed: errno \(errno)") }
        return AcceptedConnection(fd: client)
    }

    /// A port on which nothing listens (bound, then closed).
    public static func closedPort() throws -> Int {
        let listener = try TestListener()
        return listener.port
    }
}

/// A connection accepted by ``TestListener``.
public final class AcceptedConnection: @unchecked Sendable {
    private var fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Reads until the request head is complete (blank line) and returns it.
    public func readRequestHead(timeoutSeconds: Int = 10) throws -> String {
        var received: [UInt8] = []
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            guard let bytes = try read(timeoutSeconds: timeoutSeconds), !bytes.isEmpty else {
                throw TestClientError("peer closed before the request head was complete")
            }
            received += bytes
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Waits up to `timeoutSeconds` for the peer to close; true when it did.
    public func waitForPeerClose(timeoutSeconds: Int) -> Bool {
        while true {
            do {
                guard let bytes = try read(timeoutSeconds: timeoutSeconds) else { return true }
                if bytes.isEmpty { return true }
            } catch {
                return false
            }
        }
    }

    /// Writes all bytes.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Closes the connection now (the peer reads its end).
    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// Bytes read, `[]`/nil on EOF or reset; throws on timeout.
    private func read(timeoutSeconds: Int) throws -> [UInt8]? {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(timeoutSeconds * 1000)) == 1 else { throw TestClientError("timed out") }
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { return nil }
        return Array(chunk[0..<count])
    }
}

/// A loopback port that refuses connections for as long as this object lives: the socket is bound but
/// never listens, so no other test's server can take the port meanwhile.
public final class RefusingPort: @unchecked Sendable {
    private let fd: Int32
    /// The port.
    public let port: Int

    /// Reserves a port.
    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        guard fd >= 0 else { throw TestClientError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw TestClientError("bind failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { if fd >= 0 { close(fd) } }
}
