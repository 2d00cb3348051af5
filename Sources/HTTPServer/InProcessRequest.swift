/// A request as a value, not tied to evhttp: what ``InProcessServer`` serves without a socket (router-mode tests).
public struct InProcessRequest: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The request target: an origin-form path with its query (`/v1/sessions/s/events?format=snapshot`).
    public var target: String
    /// The header lines, in order (the first of a name is the one a handler reads, as with evhttp).
    public var headers: [HTTPHeader]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: HTTPMethod, target: String, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The value of the first header line named `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.elementsEqual(name.utf8) { $0 | 0x20 == $1 | 0x20 } }?.value
    }

    /// A request held by reference (``HTTPRequest`` keeps one).
    final class Box: Sendable {
        let request: InProcessRequest

        init(_ request: InProcessRequest) {
            self.request = request
        }
    }
}
