import EventLoop
import HTTPServer
import Testing

@testable import VMHost

@Suite("Request metrics")
struct RequestMetricsTests {
    /// Counters by route, method and status; histograms by route, cumulative, with `le` bounds in seconds.
    @Test @LoopActor func countsAndHistogramsInTheTextFormat() {
        let metrics = RequestMetrics(buckets: [.milliseconds(1), .microseconds(100), .milliseconds(250)])
        var empty: [UInt8] = []
        metrics.emit(into: &empty)
        #expect(empty.isEmpty)

        metrics.record(route: "/v1/sessions/:id/search", method: .get, status: 200, duration: .microseconds(50))
        metrics.record(route: "/v1/sessions/:id/search", method: .get, status: 200, duration: .microseconds(100))
        metrics.record(route: "/v1/sessions/:id/search", method: .get, status: 404, duration: .milliseconds(2))
        // Same length as the route above, another route.
        metrics.record(route: "/v1/sessions/:id/events", method: .get, status: 200, duration: .seconds(1))
        metrics.record(route: "/v1/sessions/:id/search", method: .delete, status: 200, duration: .nanoseconds(1))
        metrics.record(route: "unmatched", method: .get, status: 503, duration: .microseconds(1_500))
        var buffer: [UInt8] = []
        metrics.emit(into: &buffer)
        let search = #"vmhost_http_request_duration_seconds_bucket{route="/v1/sessions/:id/search""#
        let events = #"vmhost_http_request_duration_seconds_bucket{route="/v1/sessions/:id/events""#
        #expect(
            String(decoding: buffer, as: UTF8.self) == """
                # TYPE vmhost_http_requests_total counter
                vmhost_http_requests_total{route="/v1/sessions/:id/search",method="GET",status="200"} 2
                vmhost_http_requests_total{route="/v1/sessions/:id/search",method="GET",status="404"} 1
                vmhost_http_requests_total{route="/v1/sessions/:id/events",method="GET",status="200"} 1
                vmhost_http_requests_total{route="/v1/sessions/:id/search",method="DELETE",status="200"} 1
                vmhost_http_requests_total{route="unmatched",method="GET",status="503"} 1
                # TYPE vmhost_http_request_duration_seconds histogram
                \(search),le="0.0001"} 3
                \(search),le="0.001"} 3
                \(search),le="0.25"} 4
                \(search),le="+Inf"} 4
                vmhost_http_request_duration_seconds_sum{route="/v1/sessions/:id/search"} 0.002150001
                vmhost_http_request_duration_seconds_count{route="/v1/sessions/:id/search"} 4
                \(events),le="0.0001"} 0
                \(events),le="0.001"} 0
                \(events),le="0.25"} 0
                \(events),le="+Inf"} 1
                vmhost_http_request_duration_seconds_sum{route="/v1/sessions/:id/events"} 1.0
                vmhost_http_request_duration_seconds_count{route="/v1/sessions/:id/events"} 1
                vmhost_http_request_duration_seconds_bucket{route="unmatched",le="0.0001"} 0
                vmhost_http_request_duration_seconds_bucket{route="unmatched",le="0.001"} 0
                vmhost_http_request_duration_seconds_bucket{route="unmatched",le="0.25"} 1
                vmhost_http_request_duration_seconds_bucket{route="unmatched",le="+Inf"} 1
                vmhost_http_request_duration_seconds_sum{route="unmatched"} 0.0015
                vmhost_http_request_duration_seconds_count{route="unmatched"} 1

                """)
    }

    @Test func labelValuesAndSecondsAreWrittenExactly() {
        #expect(RequestMetrics.escaped(#"/a"b\c"#) == #"/a\"b\\c"#)
        #expect(RequestMetrics.escaped("a\nb") == #"a\nb"#)
        #expect(RequestMetrics.escaped("/v1/sessions/:id") == "/v1/sessions/:id")
        #expect(RequestMetrics.seconds(0) == "0.0")
        #expect(RequestMetrics.seconds(2_500_000_000) == "2.5")
        #expect(RequestMetrics.seconds(10_000_000_000) == "10.0")
        #expect(RequestMetrics.seconds(1) == "0.000000001")
        #expect(RequestMetrics.seconds(-1_500_000_000) == "-1.5")
    }
}
