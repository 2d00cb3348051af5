import Logging

/// What the server reports about each finished request (for metrics).
public struct HTTPRequestRecord: Sendable {
    /// The matched route pattern, or `unmatched`.
    public var route: String
    /// The request method.
    public var method: HTTPMethod
    /// The response status.
    public var status: Int
    /// Time from dispatch to the response (or to the start of a stream).
    public var duration: Duration
}

/// One structured line per answered request.
///
/// At debug level only: at info, logging every request would cost more than serving it.
struct AccessLog {
    let logger: Logger

    /// Logs `record` under the request's id.
    func log(_ record: HTTPRequestRecord, requestID: String) {
        guard logger.logLevel <= .debug else { return }
        logger.debug(
            "request",
            metadata: [
                "request-id": "\(requestID)", "route": "\(record.route)", "method": "\(record.method.rawValue)",
                "status": "\(record.status)", "duration": "\(record.duration)",
            ]
        )
    }
}
