import EventLoop
import EventStreams

/// A response as a value, not tied to evhttp: what ``InProcessServer`` answers, with the headers the server adds
/// to every answer on a connection (`Content-Type`, `X-Request-ID`, the common headers, `Cache-Control`, `Date`)
/// and without the framing (`Content-Length`, `Transfer-Encoding`, `Connection`), which only a socket has.
public struct InProcessResponse {
    /// What follows the head.
    public enum Body {
        /// The whole body (empty for `HEAD`, `204` and `304`, as on a connection).
        case bytes([UInt8])
        /// A Server-Sent Events stream: the caller hands its sink (an in-memory one) to `start` once; the
        /// handler's closure then subscribes it as it would a connection's stream.
        case stream(@LoopActor (any EventSink) -> Void)
    }

    /// The status code.
    public var status: Int
    /// The header lines, in the order the server writes them.
    public var headers: [HTTPHeader]
    /// The body, or the stream.
    public var body: Body

    /// The value of the first header line named `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.elementsEqual(name.utf8) { $0 | 0x20 == $1 | 0x20 } }?.value
    }
}
