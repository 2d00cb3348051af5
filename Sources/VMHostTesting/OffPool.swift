#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking work (socket reads) on a thread of its own, never on Swift's cooperative pool.
///
/// The pool has as many threads as cores (two here); a test that blocked one in `recv` would stall every
/// other task in the process, including the server under test whenever it passes through the pool.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let started = startDetachedThread {
            continuation.resume(with: Result { try body() })
        }
        if !started {
            continuation.resume(throwing: TestClientError("pthread_create failed"))
        }
    }
}

private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Starts a detached POSIX thread running `run`; false when no thread could be created.
private func startDetachedThread(_ run: @escaping @Sendable () -> Void) -> Bool {
    let context = Unmanaged.passRetained(ThreadBody(run)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(
        &thread, nil,
        { context in
            guard let context else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(context).takeRetainedValue().run()
            return nil
        }, context)
    guard result == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        return false
    }
    pthread_detach(thread)
    return true
}
