import EventLoop
import HTTPServer

/// `vmhost_http_requests_total` (by route, method and status) and `vmhost_http_request_duration_seconds` (by
/// route): counted on the loop for every request, written in the Prometheus text format at scrape time, after
/// the registry's other metrics.
///
/// NB: not swift-prometheus's counter and histogram behind swift-metrics: finding the pair for a request (a
/// dictionary keyed by route, method and status), the metrics handler's indirection, the histogram's lock and its
/// 128-bit `Duration` arithmetic were a visible share of a `GET` (docs/performance.md, "Receipts"). Here a request
/// costs a short scan of the series whose route has the same length and a few integer additions.
@LoopActor
final class RequestMetrics {
    /// One counter: requests of `route` and `method` answered with `status`.
    private struct Series {
        let route: String
        let method: HTTPMethod
        let status: Int
        var count = 0
        /// Its route's histogram in ``histograms``.
        let histogram: Int
    }

    /// One route's durations: how many fell at or under each bound (not cumulative until written), their sum
    /// and count.
    private struct Histogram {
        let route: String
        var buckets: [Int]
        var sumNanoseconds: Int64 = 0
        var count = 0
    }

    /// The histograms' upper bounds, in nanoseconds, ascending.
    private let bounds: [Int64]
    private var series: [Series] = []
    private var histograms: [Histogram] = []
    /// Indexes in `series` by the length of their route: most lengths have one route.
    private var seriesByRouteLength: [[Int]] = []

    /// Metrics whose histograms have `buckets` as upper bounds.
    nonisolated init(buckets: [Duration]) {
        bounds = buckets.map(Self.nanoseconds).sorted()
    }

    /// Counts an answered request.
    func record(_ record: HTTPRequestRecord) {
        self.record(route: record.route, method: record.method, status: record.status, duration: record.duration)
    }

    /// Counts a request of `route` and `method` answered with `status` after `duration`.
    func record(route: String, method: HTTPMethod, status: Int, duration: Duration) {
        let index = seriesIndex(route: route, method: method, status: status)
        series[index].count += 1
        let nanoseconds = Self.nanoseconds(duration)
        let histogram = series[index].histogram
        var bucket = 0
        while bucket < bounds.count && bounds[bucket] < nanoseconds { bucket += 1 }
        if bucket < bounds.count { histograms[histogram].buckets[bucket] += 1 }
        histograms[histogram].sumNanoseconds &+= nanoseconds
        histograms[histogram].count += 1
    }

    /// The index of the series of `route`, `method` and `status`, made when new.
    private func seriesIndex(route: String, method: HTTPMethod, status: Int) -> Int {
        let length = route.utf8.count
        if length < seriesByRouteLength.count {
            for index in seriesByRouteLength[length]
            where series[index].status == status && series[index].method == method && series[index].route == route {
                return index
            }
        } else {
            seriesByRouteLength += Array(repeating: [], count: length + 1 - seriesByRouteLength.count)
        }
        let histogram =
            histograms.firstIndex { $0.route == route }
            ?? {
                histograms.append(Histogram(route: route, buckets: Array(repeating: 0, count: bounds.count)))
                return histograms.count - 1
            }()
        series.append(Series(route: route, method: method, status: status, histogram: histogram))
        seriesByRouteLength[length].append(series.count - 1)
        return series.count - 1
    }

    /// Appends both families in the Prometheus text format (nothing before the first request).
    func emit(into buffer: inout [UInt8]) {
        guard !series.isEmpty else { return }
        buffer.append(contentsOf: "# TYPE vmhost_http_requests_total counter\n".utf8)
        for entry in series {
            let labels =
                "route=\"\(Self.escaped(entry.route))\",method=\"\(entry.method.rawValue)\",status=\"\(entry.status)\""
            buffer.append(contentsOf: "vmhost_http_requests_total{\(labels)} \(entry.count)\n".utf8)
        }
        buffer.append(contentsOf: "# TYPE vmhost_http_request_duration_seconds histogram\n".utf8)
        let name = "vmhost_http_request_duration_seconds"
        for histogram in histograms {
            let route = "route=\"\(Self.escaped(histogram.route))\""
            var cumulative = 0
            for (bound, count) in zip(bounds, histogram.buckets) {
                cumulative += count
                buffer.append(contentsOf: "\(name)_bucket{\(route),le=\"\(Self.seconds(bound))\"} \(cumulative)\n".utf8)
            }
            buffer.append(contentsOf: "\(name)_bucket{\(route),le=\"+Inf\"} \(histogram.count)\n".utf8)
            buffer.append(contentsOf: "\(name)_sum{\(route)} \(Self.seconds(histogram.sumNanoseconds))\n".utf8)
            buffer.append(contentsOf: "\(name)_count{\(route)} \(histogram.count)\n".utf8)
        }
    }

    /// A label value with `\`, `"` and newlines escaped (the text format's rules).
    nonisolated static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == 10 }) else {
            return value
        }
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Nanoseconds as seconds in the text format, exactly (`0.0001`, `2.5`, `10.0`).
    nonisolated static func seconds(_ nanoseconds: Int64) -> String {
        let sign = nanoseconds < 0 ? "-" : ""
        let magnitude = nanoseconds.magnitude
        var fraction = String(magnitude % 1_000_000_000)
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.count > 1 && fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(magnitude / 1_000_000_000).\(fraction)"
    }

    nonisolated static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
    }
}
