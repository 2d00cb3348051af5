import CLibevent
import EventLoop

#if canImport(Glibc)
import Glibc
#endif

/// The listening socket of a server: the configured address parsed and bound with its backlog, and the port
/// it got (port 0 picks a free one).
@LoopActor
struct Listener {
    /// The libevent listener (closes its socket when freed); evhttp owns it once bound.
    let pointer: OpaquePointer
    /// The bound port.
    let port: Int

    /// Binds `host:port` (IPv4 or IPv6 literal) on the loop.
    init(host: String, port: Int, backlog: Int) throws(HTTPServerError) {
        let isIPv6 = host.contains(":")
        let hostPort = isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
        // NB: libevent's parser rejects port 0, so parse with port 1 and put the real port in afterwards.
        let parseable = isIPv6 ? "[\(host)]:1" : "\(host):1"
        var address = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let parsed = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { evutil_parse_sockaddr_port(parseable, $0, &length) }
        }
        guard parsed == 0, (0...65535).contains(port) else { throw .invalidAddress(hostPort) }
        let networkPort = UInt16(port).bigEndian
        withUnsafeMutablePointer(to: &address) { pointer in
            if Int32(pointer.pointee.ss_family) == AF_INET6 {
                pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port = networkPort }
            } else {
                pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port = networkPort }
            }
        }
        let listener = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                evconnlistener_new_bind(
                    EventLoop.shared.base, nil, nil, UInt32(LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE),
                    Int32(backlog), $0, length
                )
            }
        }
        guard let listener else {
            throw .cannotListen(address: hostPort, reason: String(cString: strerror(errno)))
        }
        self.pointer = listener
        self.port = Self.localPort(of: evconnlistener_get_fd(listener)) ?? port
    }

    /// Closes the socket (only while evhttp does not own the listener).
    func close() {
        evconnlistener_free(pointer)
    }

    private static func localPort(of fd: Int32) -> Int? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
        default:
            return nil
        }
    }
}
