import EventLoop
import HTTPClient

/// Shares upstream GETs between sessions: identical requests in flight at the same time ride on one
/// transfer, and cacheable answers are kept for a short time.
///
/// - A caller that is cancelled leaves at once with `CancellationError`; the transfer goes on while other
///   callers still wait, and is aborted when the last one leaves.
/// - The cache keeps successful (2xx) answers of cacheable requests for ``ttl``, bounded by entry count and
///   total body bytes; the oldest entries go first.
@LoopActor
public final class SharedFetcher {
    /// What happened to one request, for metrics.
    public enum Outcome: String, Sendable {
        /// Answered from the cache.
        case hit
        /// Started a new transfer.
        case miss
        /// Joined a transfer already in flight.
        case shared
    }

    /// The client doing the transfers.
    public let client: HTTPClient
    /// How long a cached answer stays fresh (zero: no cache).
    public let ttl: Duration
    /// Most cached answers.
    public let maxEntries: Int
    /// Most cached body bytes in total.
    public let maxBytes: Int
    /// Called once per request with its outcome.
    public var onOutcome: (@LoopActor (Outcome) -> Void)?

    @LoopActor
    private final class Flight {
        var waiters: [Int: CheckedContinuation<HTTPClientResponse, any Error>] = [:]
        var task: Task<Void, Never>?
    }

    private struct Entry {
        var response: HTTPClientResponse
        var expires: ContinuousClock.Instant
    }

    private var flights: [String: Flight] = [:]
    private var cache: [String: Entry] = [:]
    private var cacheOrder: [String] = []
    private var cachedBytes = 0
    private var nextWaiterID = 0
    private let clock: LoopClock

    /// Creates a fetcher.
    public init(
        client: HTTPClient, ttl: Duration = .seconds(60), maxEntries: Int = 512, maxBytes: Int = 32 * 1024 * 1024,
        clock: LoopClock = LoopClock()
    ) {
        self.client = client
        self.ttl = ttl
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.clock = clock
    }

    /// Transfers in flight (for tests and metrics).
    public var flightCount: Int { flights.count }

    /// Fetches `url` with GET, sharing an identical transfer in flight and, when `cacheable`, the cache.
    /// - Throws: ``HTTPClientError`` (`.cancelled` when the caller's task was cancelled).
    public func get(
        _ url: String, headers: [(name: String, value: String)] = [], cacheable: Bool
    ) async throws(HTTPClientError)
        -> HTTPClientResponse
    {
        if Task.isCancelled { throw .cancelled }
        if cacheable, let entry = cache[url] {
            if entry.expires > clock.now {
                onOutcome?(.hit)
                return entry.response
            }
            removeFromCache(url)
        }
        let flight: Flight
        if let existing = flights[url] {
            flight = existing
            onOutcome?(.shared)
        } else {
            flight = Flight()
            flights[url] = flight
            onOutcome?(.miss)
            flight.task = Task { [weak self, client] in
                let result: Result<HTTPClientResponse, HTTPClientError>
                do throws(HTTPClientError) {
                    result = .success(try await client.execute(HTTPClientRequest(url: url, headers: headers)))
                } catch {
                    result = .failure(error)
                }
                self?.land(url: url, flight: flight, result: result, cacheable: cacheable)
            }
        }
        let id = nextWaiterID
        nextWaiterID += 1
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if Task.isCancelled {
                        continuation.resume(throwing: HTTPClientError.cancelled)
                        leaveIfAbandoned(url: url, flight: flight)
                    } else {
                        flight.waiters[id] = continuation
                    }
                }
            } onCancel: {
                if EventLoop.shared.isOnLoopThread {
                    LoopActor.assumeIsolated { self.leave(url: url, flight: flight, waiter: id) }
                } else {
                    Task { @LoopActor in self.leave(url: url, flight: flight, waiter: id) }
                }
            }
        } catch let error as HTTPClientError {
            throw error
        } catch {
            throw .transport("\(error)")
        }
    }

    private func leave(url: String, flight: Flight, waiter: Int) {
        guard let continuation = flight.waiters.removeValue(forKey: waiter) else { return }
        continuation.resume(throwing: HTTPClientError.cancelled)
        leaveIfAbandoned(url: url, flight: flight)
    }

    /// The last caller left: abort the transfer.
    private func leaveIfAbandoned(url: String, flight: Flight) {
        guard flight.waiters.isEmpty else { return }
        flight.task?.cancel()
        if flights[url] === flight { flights[url] = nil }
    }

    private func land(url: String, flight: Flight, result: Result<HTTPClientResponse, HTTPClientError>, cacheable: Bool)
    {
        if flights[url] === flight { flights[url] = nil }
        if cacheable, case .success(let response) = result, (200..<300).contains(response.status) {
            store(url: url, response: response)
        }
        let waiters = flight.waiters
        flight.waiters.removeAll()
        for continuation in waiters.values {
            continuation.resume(with: result.mapError { $0 as any Error })
        }
    }

    private func store(url: String, response: HTTPClientResponse) {
        guard ttl > .zero, response.body.count <= maxBytes / 4 else { return }
        removeFromCache(url)
        cache[url] = Entry(response: response, expires: clock.now.advanced(by: ttl))
        cacheOrder.append(url)
        cachedBytes += response.body.count
        while cache.count > maxEntries || cachedBytes > maxBytes, let oldest = cacheOrder.first {
            removeFromCache(oldest)
        }
    }

    private func removeFromCache(_ url: String) {
        guard let entry = cache.removeValue(forKey: url) else { return }
        cachedBytes -= entry.response.body.count
        if let index = cacheOrder.firstIndex(of: url) { cacheOrder.remove(at: index) }
    }
}
