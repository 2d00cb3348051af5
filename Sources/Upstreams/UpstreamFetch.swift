import EventLoop
import HTTPClient
import JSON
import Services

/// Fetches a URL through a ``SharedFetcher`` and parses the body as JSON, classifying every failure as an
/// ``UpstreamError``: identical requests in flight share one transfer, and `cacheable` answers come from its cache
/// while fresh.
///
/// - Throws: `CancellationError` when the task was cancelled (the transfer is aborted), otherwise
///   ``UpstreamError`` (`network`, `upstream` for a non-2xx status, `decoding` for a body that is not JSON).
@LoopActor
public func fetchJSON(_ url: String, fetcher: SharedFetcher, service: String, cacheable: Bool) async throws -> JSONValue
{
    let response: HTTPClientResponse
    do {
        response = try await fetcher.get(url, headers: [("Accept", "application/json")], cacheable: cacheable)
    } catch .cancelled {
        throw CancellationError()
    } catch {
        throw UpstreamError(error)
    }
    return try decodeJSONResponse(response, service: service)
}

/// Classifies a response: non-2xx is an `upstream` error, a body that is not JSON a `decoding` error.
func decodeJSONResponse(_ response: HTTPClientResponse, service: String) throws(UpstreamError) -> JSONValue {
    guard (200..<300).contains(response.status) else {
        throw UpstreamError.httpStatus(response.status, service: service)
    }
    do {
        return try JSONParser.parse(response.body)
    } catch {
        throw UpstreamError.decoding(error.description, service: service)
    }
}

extension JSONValue {
    /// A string, or a number written as text (upstreams mix both).
    public var lenientString: String? {
        switch self {
        case .string(let string): string
        case .int(let int): String(int)
        case .double(let double): String(double)
        default: nil
        }
    }

    /// A number, or a string holding one (Flickr sends `"total": "101311"`).
    public var lenientDouble: Double? {
        switch self {
        case .int(let int): Double(int)
        case .double(let double): double
        case .string(let string): Double(string.trimmingSpaces)
        default: nil
        }
    }

    /// An integer, or a string holding one.
    public var lenientInt: Int? {
        switch self {
        case .int(let int): int
        case .double(let double): double.rounded() == double && abs(double) < 9e15 ? Int(double) : nil
        case .string(let string): Int(string.trimmingSpaces)
        default: nil
        }
    }
}

extension String {
    var trimmingSpaces: Substring {
        var slice = self[...]
        while slice.first == " " { slice = slice.dropFirst() }
        while slice.last == " " { slice = slice.dropLast() }
        return slice
    }
}
