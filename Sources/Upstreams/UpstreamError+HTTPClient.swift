import HTTPClient
import Services

extension UpstreamError {
    /// A `network` error for a transfer that produced no response.
    public init(_ error: HTTPClientError) {
        self.init(kind: .network, message: error.description)
    }
}
