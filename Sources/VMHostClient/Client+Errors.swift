import Foundation
import OpenAPIRuntime

extension Client {
    /// The `VMHostClientError` behind an error the generated client threw (it wraps what the middleware and the
    /// transport throw in `ClientError`).
    static func unwrap(_ error: any Error) -> VMHostClientError {
        if let error = error as? VMHostClientError { return error }
        if let error = error as? ClientError {
            if let underlying = error.underlyingError as? VMHostClientError { return underlying }
            if error.response == nil { return .transport(error.underlyingError) }
            return .invalidResponse(message: String(describing: error.underlyingError))
        }
        return .transport(error)
    }

    /// Runs a call of the generated client, throwing its failure as a `VMHostClientError` (or `CancellationError`).
    static func run<Result: Sendable>(_ call: () async throws -> Result) async throws -> Result {
        do {
            return try await call()
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            throw unwrap(error)
        }
    }
}
