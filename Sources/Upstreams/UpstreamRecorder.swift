import EventLoop
import Services

/// Receives one record per upstream call, for metrics.
public struct UpstreamRecorder: Sendable {
    /// Called with the service name (`products`, `flickr`), the outcome (`success`, an error kind, or
    /// `cancelled`) and the call's duration.
    public var record: @Sendable (_ service: String, _ outcome: String, _ duration: Duration) -> Void
    /// The clock calls are timed by (the application's).
    public var clock: LoopClock

    /// Creates a recorder.
    public init(
        clock: LoopClock = LoopClock(),
        record: @escaping @Sendable (_ service: String, _ outcome: String, _ duration: Duration) -> Void
    ) {
        self.clock = clock
        self.record = record
    }

    /// A recorder that drops everything.
    public static let none = UpstreamRecorder { _, _, _ in }
}

/// Runs one upstream call and records its outcome and duration.
@LoopActor
public func recordingUpstreamCall<T>(
    service: String, recorder: UpstreamRecorder, _ call: @LoopActor () async throws -> T
) async throws -> T {
    let clock = recorder.clock
    let started = clock.now
    do {
        let value = try await call()
        recorder.record(service, "success", clock.now - started)
        return value
    } catch let error as UpstreamError {
        recorder.record(service, error.kind.rawValue, clock.now - started)
        throw error
    } catch {
        recorder.record(service, "cancelled", clock.now - started)
        throw error
    }
}
