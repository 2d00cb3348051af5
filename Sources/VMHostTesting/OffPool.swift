#if canImport(Glibc)
import Glibc
#endif

/// Runs blocking work (socket reads) on a thread of its own, never on Swift's cooperative pool.
///
/// The pool has as many threads as cores (two here); a test that blocked one in `recv` would stall every
/// other task in the process, including the server under test whenever it passes through the pool.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    // NB: the result crosses threads through a pthread mutex, not only through the continuation: the
    // concurrency runtime is not instrumented, so ThreadSanitizer saw what the thread built (an object it
    // allocated) read by the resumed task with no ordering between them, and reported a race.
    let handOver = HandOver<T>()
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let started = startDetachedThread {
            handOver.put(Result { try body() })
            continuation.resume()
        }
        if !started {
            continuation.resume(throwing: TestClientError("pthread_create failed"))
        }
    }
    return try handOver.take().get()
}

/// One result handed from a thread to a task, behind a pthread mutex (which ThreadSanitizer understands).
private final class HandOver<T: Sendable>: @unchecked Sendable {
    // NB: allocated, so the mutex has a stable address (a stored property passed `&` need not).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var result: Result<T, any Error>?

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func put(_ value: Result<T, any Error>) {
        pthread_mutex_lock(mutex)
        result = value
        pthread_mutex_unlock(mutex)
    }

    func take() -> Result<T, any Error> {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return result ?? .failure(TestClientError("no result handed over"))
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

/// Lets other tasks run every `interval` iterations (counted from 0) of a long CPU-bound test loop.
///
/// Tests run in parallel on the cooperative pool, as wide as the machine has cores (two on CI): two such loops
/// would hold it for seconds (ten under ThreadSanitizer), stalling every test that waits against a deadline.
public func sharePool(every interval: Int, at iteration: Int) async {
    if iteration % interval == interval - 1 { await Task.yield() }
}
