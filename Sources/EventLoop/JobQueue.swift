#if canImport(Glibc)
import Glibc
#endif

/// The jobs waiting for the loop, behind a pthread mutex.
///
/// NB: a pthread mutex rather than `Synchronization.Mutex`: ThreadSanitizer understands pthread locks, while
/// on Linux `Mutex` is a bare futex it cannot see, so every hand-over of a job was reported as a race.
final class JobQueue: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var jobs: [UnownedJob] = []

    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Appends a job; true when the queue was empty (the loop must be woken).
    func append(_ job: UnownedJob) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        jobs.append(job)
        return jobs.count == 1
    }

    /// Takes every queued job.
    func takeAll() -> [UnownedJob] {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        let taken = jobs
        jobs.removeAll(keepingCapacity: true)
        return taken
    }
}
