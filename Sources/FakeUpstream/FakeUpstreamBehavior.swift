import JSON

/// A fault the fake upstream injects into its answers.
public enum FakeFault: String, Sendable, CaseIterable {
    /// HTTP 500 with a JSON error body.
    case http500
    /// HTTP 429 with a body that is not JSON (as Flickr's rate limiter).
    case http429
    /// HTTP 200 with a truncated JSON body.
    case malformed
    /// HTTP 200 reporting failure in the body (`success: false` / `stat: fail`).
    case business
    /// The answer comes after ``FakeUpstreamBehavior/slowDelay``.
    case slow
    /// No answer at all until the client gives up.
    case hang
}

/// How the fake upstream behaves; changeable at run time (`PUT /_control`) and from tests.
public struct FakeUpstreamBehavior: Sendable, Equatable {
    /// Delay before every answer.
    public var latency: Duration
    /// The fault injected, if any.
    public var fault: FakeFault?
    /// How many requests get the fault before answers are normal again (nil: all of them).
    public var faultCount: Int?
    /// The delay of the `slow` fault.
    public var slowDelay: Duration
    /// Whether every `flickr.photos.search` finds nothing (`total` 0, no photos), whatever its text: an
    /// ordinary word then shows a client's empty-results screen.
    public var emptySearches: Bool

    /// Creates a behaviour; the default answers at once with no fault.
    public init(
        latency: Duration = .zero, fault: FakeFault? = nil, faultCount: Int? = nil, slowDelay: Duration = .seconds(3),
        emptySearches: Bool = false
    ) {
        self.latency = latency
        self.fault = fault
        self.faultCount = faultCount
        self.slowDelay = slowDelay
        self.emptySearches = emptySearches
    }

    var json: JSONValue {
        [
            "latencyMs": .int(
                Int(latency.components.seconds * 1000 + latency.components.attoseconds / 1_000_000_000_000_000)),
            "fault": fault.map { .string($0.rawValue) } ?? .null,
            "faultCount": faultCount.map { .int($0) } ?? .null,
            "slowDelayMs": .int(
                Int(slowDelay.components.seconds * 1000 + slowDelay.components.attoseconds / 1_000_000_000_000_000)
            ),
            "emptySearches": .bool(emptySearches),
        ]
    }
}
