import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Headers as vmhost reads them:
/// - an event stream is asked for gzip-encoded (`Accept-Encoding: gzip`): a patch of 30 photos is 6.6 KB of text and
///   1.1 KB gzipped; the transport inflates it (AsyncHTTPClient with decompression on, URLSession by itself);
/// - `Last-Event-ID`, `Prefer` and `Idempotency-Key` go out as written. NB: the OpenAPI runtime serialises header
///   parameters like URI components (`search%3A4%2Cproducts%3A2`, `wait%3D10`), which the server takes literally: a
///   resume id it cannot read (a snapshot of everything instead of the missed patches) and a `Prefer` it ignores.
///   The values this client puts there never hold a `%` of their own, so decoding them gives back what was set.
struct RequestHeadersMiddleware: ClientMiddleware {
    static let literalHeaders: [HTTPField.Name] = [
        HTTPField.Name("Last-Event-ID"), HTTPField.Name("Prefer"), HTTPField.Name("Idempotency-Key"),
    ].compactMap { $0 }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if operationID == Operations.StreamSession.id { request.headerFields[.acceptEncoding] = "gzip" }
        for name in Self.literalHeaders {
            if let value = request.headerFields[name], value.contains("%"), let decoded = value.removingPercentEncoding
            {
                request.headerFields[name] = decoded
            }
        }
        return try await next(request, body, baseURL)
    }
}
