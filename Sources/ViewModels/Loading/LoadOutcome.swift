import EventLoop
import Services

/// How one upstream load ended, classified once for every view model: a value, a failure for the single
/// error channel (`lastError`), or a cancellation, which leaves no trace in the state.
enum LoadOutcome<Value: Sendable>: Sendable {
    case success(Value)
    case failure(UpstreamError)
    case cancelled

    /// Runs `load` and classifies what it returns or throws; errors that are not ``UpstreamError`` (none are
    /// expected) become `network` errors rather than being lost.
    @LoopActor
    static func of(_ load: @LoopActor () async throws -> Value) async -> LoadOutcome {
        do {
            return .success(try await load())
        } catch let error as UpstreamError {
            return .failure(error)
        } catch is CancellationError {
            return .cancelled
        } catch {
            return .failure(UpstreamError(kind: .network, message: "\(error)"))
        }
    }
}
