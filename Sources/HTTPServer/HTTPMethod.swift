import CLibevent

/// An HTTP request method.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case delete = "DELETE"
    case options = "OPTIONS"
    case patch = "PATCH"
    case trace = "TRACE"
    case connect = "CONNECT"

    init?(evhttp command: evhttp_cmd_type) {
        switch command {
        case EVHTTP_REQ_GET: self = .get
        case EVHTTP_REQ_HEAD: self = .head
        case EVHTTP_REQ_POST: self = .post
        case EVHTTP_REQ_PUT: self = .put
        case EVHTTP_REQ_DELETE: self = .delete
        case EVHTTP_REQ_OPTIONS: self = .options
        case EVHTTP_REQ_PATCH: self = .patch
        case EVHTTP_REQ_TRACE: self = .trace
        case EVHTTP_REQ_CONNECT: self = .connect
        default: return nil
        }
    }

    /// Every method, known or not: the server accepts them all so the router answers 405 itself.
    ///
    /// NB: evhttp 2.1 marks a method it does not know with bit 15 (`EVHTTP_REQ_UNKNOWN_` in its private
    /// http-internal.h) and answers `501` itself unless that bit is allowed too; with every bit allowed such a
    /// request reaches the server, which answers `501 method_not_implemented` in the configured format.
    static let evhttpAllMethods = UInt16.max
}
