import CoreMetrics
import EventLoop
import HTTPServer
import Journal
import Prometheus
import Services
import Sessions
import Synchronization
import Upstreams

/// vmhost's metrics, on swift-metrics with a Prometheus registry of the application's own (so several
/// applications in one test process never share counters).
final class VMHostMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let sessions: CoreMetrics.Gauge
    private let streams: CoreMetrics.Gauge
    private let connections: CoreMetrics.Gauge
    private let sessionsCreated: CoreMetrics.Counter
    /// Requests by route, method and status, and their durations by route.
    private let requests: RequestMetrics
    private let upstreamCounters = Mutex<[String: CoreMetrics.Counter]>([:])
    private let upstreamTimers = Mutex<[String: CoreMetrics.Timer]>([:])

    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(10),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        requests = RequestMetrics(buckets: factory.defaultDurationHistogramBuckets)
        sessions = CoreMetrics.Gauge(label: "vmhost_sessions", factory: factory)
        streams = CoreMetrics.Gauge(label: "vmhost_open_streams", factory: factory)
        connections = CoreMetrics.Gauge(label: "vmhost_open_connections", factory: factory)
        sessionsCreated = CoreMetrics.Counter(label: "vmhost_sessions_created_total", factory: factory)
        journalAvailable = CoreMetrics.Gauge(label: "vmhost_journal_available", factory: factory)
        journalLag = CoreMetrics.Gauge(label: "vmhost_journal_lag_seconds", factory: factory)
        journalWrites = CoreMetrics.Counter(label: "vmhost_journal_writes_total", factory: factory)
        journalFailures = CoreMetrics.Counter(label: "vmhost_journal_write_failures_total", factory: factory)
        journalCorrupt = CoreMetrics.Counter(label: "vmhost_journal_corrupt_records_total", factory: factory)
        takeovers = CoreMetrics.Counter(label: "vmhost_sessions_taken_over_total", factory: factory)
        handovers = CoreMetrics.Counter(label: "vmhost_sessions_handed_over_total", factory: factory)
        journalLatency = CoreMetrics.Timer(label: "vmhost_journal_write_duration_seconds", factory: factory)
        hibernatedSessions = CoreMetrics.Gauge(label: "vmhost_sessions_hibernated", factory: factory)
        hibernations = CoreMetrics.Counter(label: "vmhost_sessions_hibernated_total", factory: factory)
        wakeups = CoreMetrics.Counter(label: "vmhost_sessions_woken_total", factory: factory)
        hibernationFailures = CoreMetrics.Counter(label: "vmhost_hibernation_failures_total", factory: factory)
        wakeLatency = CoreMetrics.Timer(label: "vmhost_session_wake_duration_seconds", factory: factory)
    }

    private let hibernationExported = Mutex(HibernationStatistics())
    private let hibernatedSessions: CoreMetrics.Gauge
    private let hibernations: CoreMetrics.Counter
    private let wakeups: CoreMetrics.Counter
    private let hibernationFailures: CoreMetrics.Counter
    private let wakeLatency: CoreMetrics.Timer

    /// The store's hibernation counters as of now, and its estimate of the sessions hibernated here
    /// (``SessionStore/hibernatedCount``).
    func updateHibernation(_ statistics: HibernationStatistics, hibernated: Int) {
        let previous = hibernationExported.withLock { exported in
            defer { exported = statistics }
            return exported
        }
        hibernations.increment(by: Int64(statistics.hibernations - previous.hibernations))
        wakeups.increment(by: Int64(statistics.wakeups - previous.wakeups))
        hibernationFailures.increment(by: Int64(statistics.failures - previous.failures))
        hibernatedSessions.record(hibernated)
    }

    /// One wake-up's takeover (a request for a session hibernated here, to its state in memory again).
    func sessionWoken(_ duration: Duration) {
        wakeLatency.recordNanoseconds(RequestMetrics.nanoseconds(duration))
    }

    func sessionCreated() { sessionsCreated.increment() }

    private let journalExported = Mutex(JournalStatistics())
    private let journalAvailable: CoreMetrics.Gauge
    private let journalLag: CoreMetrics.Gauge
    private let journalWrites: CoreMetrics.Counter
    private let journalFailures: CoreMetrics.Counter
    private let journalCorrupt: CoreMetrics.Counter
    private let takeovers: CoreMetrics.Counter
    private let handovers: CoreMetrics.Counter
    private let journalLatency: CoreMetrics.Timer

    /// The journal's counters as of now (counters advance by what changed since the last call).
    func updateJournal(_ statistics: JournalStatistics, available: Bool, lag: Duration) {
        let previous = journalExported.withLock { exported in
            defer { exported = statistics }
            return exported
        }
        journalWrites.increment(by: Int64(statistics.writes - previous.writes))
        journalFailures.increment(by: Int64(statistics.writeFailures - previous.writeFailures))
        journalCorrupt.increment(by: Int64(statistics.corruptRecords - previous.corruptRecords))
        takeovers.increment(by: Int64(statistics.takeovers - previous.takeovers))
        handovers.increment(by: Int64(statistics.handovers - previous.handovers))
        journalAvailable.record(available ? 1 : 0)
        journalLag.record(Double(lag.components.seconds) + Double(lag.components.attoseconds) / 1e18)
    }

    /// One acknowledged journal write's round trip.
    func journalWrite(_ duration: Duration) {
        journalLatency.recordNanoseconds(RequestMetrics.nanoseconds(duration))
    }

    /// Counts one shared-fetcher outcome: `hit`, `miss` or `shared`.
    func upstreamCache(_ result: String) {
        let counter = upstreamCounters.withLock { counters in
            let key = "cache \(result)"
            if let counter = counters[key] { return counter }
            let counter = CoreMetrics.Counter(
                label: "vmhost_upstream_cache_total", dimensions: [("result", result)], factory: factory
            )
            counters[key] = counter
            return counter
        }
        counter.increment()
    }

    func update(sessions sessionCount: Int, streams streamCount: Int, connections connectionCount: Int) {
        sessions.record(sessionCount)
        streams.record(streamCount)
        connections.record(connectionCount)
    }

    /// Counts an answered request.
    @LoopActor func record(_ record: HTTPRequestRecord) {
        requests.record(record)
    }

    var upstreamRecorder: UpstreamRecorder {
        UpstreamRecorder { [self] service, outcome, duration in
            let key = "\(service) \(outcome)"
            let counter = upstreamCounters.withLock { counters in
                if let counter = counters[key] { return counter }
                let counter = CoreMetrics.Counter(
                    label: "vmhost_upstream_requests_total", dimensions: [("service", service), ("outcome", outcome)],
                    factory: factory
                )
                counters[key] = counter
                return counter
            }
            counter.increment()
            let timer = upstreamTimers.withLock { timers in
                if let timer = timers[service] { return timer }
                let timer = CoreMetrics.Timer(
                    label: "vmhost_upstream_request_duration_seconds", dimensions: [("service", service)],
                    factory: factory
                )
                timers[service] = timer
                return timer
            }
            timer.recordNanoseconds(RequestMetrics.nanoseconds(duration))
        }
    }

    /// Every metric in the Prometheus text format.
    @LoopActor func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        requests.emit(into: &buffer)
        return buffer
    }
}
