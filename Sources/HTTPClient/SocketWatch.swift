import CCurl
import CCurlShims
import CLibevent
import EventLoop

/// The libevent event watching one of curl's sockets, stored in curl with `curl_multi_assign`.
@LoopActor
final class SocketWatch {
    let socket: curl_socket_t
    private var event: OpaquePointer?
    private unowned let client: HTTPClient

    init(socket: curl_socket_t, client: HTTPClient) {
        self.socket = socket
        self.client = client
    }

    /// Watches for `what` (curl's CURL_POLL_* value), replacing the previous interest.
    func update(what: Int32) {
        if let event {
            event_del(event)
            event_free(event)
            self.event = nil
        }
        var flags = Int16(EV_PERSIST)
        if what & vmh_curl_poll_in != 0 { flags |= Int16(EV_READ) }
        if what & vmh_curl_poll_out != 0 { flags |= Int16(EV_WRITE) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(
            EventLoop.shared.base, socket, flags,
            { fd, events, context in
                guard let context else { return }
                let watch = Unmanaged<SocketWatch>.fromOpaque(context).takeUnretainedValue()
                LoopActor.assumeIsolated { watch.client.socketReady(fd, events: events) }
            }, context)
        event_add(event, nil)
    }

    /// Stops watching.
    func stop() {
        if let event {
            event_del(event)
            event_free(event)
            self.event = nil
        }
    }
}
