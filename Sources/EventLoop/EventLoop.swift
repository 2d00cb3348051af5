import CLibevent
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The one libevent loop of the process, running on its own thread.
///
/// It runs the HTTP server, every timer and libcurl, and it is the executor of ``LoopActor``: Swift jobs
/// for loop-isolated code are queued here and run between I/O callbacks, so view models, sessions and
/// handlers never race and never need locks.
public final class EventLoop: SerialExecutor, @unchecked Sendable {
    /// The process-wide loop. Created and started on first use.
    public static let shared = EventLoop()

    /// The libevent base. Use it only on the loop thread (from ``LoopActor``-isolated code).
    public let base: OpaquePointer

    // NB: `@unchecked Sendable` is sound because `base` is only touched on the loop thread, and the job queue
    // is behind a lock. Other threads wake the loop through an eventfd, never through libevent: so libevent runs
    // without its own locking (`evthread_use_pthreads`), which took six mutex operations per event delivered.
    private let pendingJobs = JobQueue()
    /// Runs the queued jobs on the next loop turn (added by the loop thread itself, with a zero timeout).
    private var wakeEvent: OpaquePointer?
    /// Readable when another thread queued jobs.
    private var wakeFromOtherThreads: OpaquePointer?
    private let wakeDescriptor: Int32
    private let loopThread = Atomic<UInt>(0)

    private init() {
        // With curl's NOSIGNAL and many sockets, a peer closing mid-write must not kill the process.
        signal(SIGPIPE, SIG_IGN)
        guard let base = Self.makeBase() else {
            fatalError("event_base_new_with_config failed: libevent cannot create an event base")
        }
        self.base = base
        wakeDescriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeDescriptor >= 0 else { fatalError("eventfd failed: errno \(errno)") }
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(
            base, -1, 0,
            { _, _, context in
                guard let context else { return }
                Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().runPendingJobs()
            }, context)
        wakeFromOtherThreads = event_new(
            base, wakeDescriptor, Int16(EV_READ | EV_PERSIST),
            { descriptor, _, context in
                guard let context else { return }
                var count: UInt64 = 0
                _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
                Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().runPendingJobs()
            }, context)
        event_add(wakeFromOtherThreads, nil)
        startThread()
    }

    /// The kernel interface libevent runs the loop on, as libevent names it (`epoll (with changelist)` on Linux).
    public var backend: String {
        event_base_get_method(base).map { String(cString: $0) } ?? "unknown"
    }

    /// A base on epoll with its changelist: the changes made to one descriptor's events during a loop turn reach
    /// the kernel as one `epoll_ctl` when the turn ends (none when they cancel out, as the write event that a
    /// reply enables and the server's write at the end of the turn disables again), instead of one call per
    /// change. NB: libevent's caveat for it is descriptors cloned with `dup`, which share one epoll registration;
    /// vmhost registers none (sockets, an eventfd, libevent's own signal socketpair). Measured alone (`strace
    /// -c`, 10 rounds of the 1,000-session benchmark): 77,228 → 49,064 `epoll_ctl` calls.
    private static func makeBase() -> OpaquePointer? {
        guard let config = event_config_new() else { return nil }
        defer { event_config_free(config) }
        _ = event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        return event_base_new_with_config(config)
    }

    private func startThread() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
                loop.loopThread.store(UInt(pthread_self()), ordering: .releasing)
                event_base_loop(loop.base, EVLOOP_NO_EXIT_ON_EMPTY)
                return nil
            }, context)
        precondition(result == 0, "pthread_create failed: \(result)")
        // Record the id here too, so `checkIsolated` is right even before the thread has run.
        loopThread.store(UInt(thread), ordering: .releasing)
    }

    /// True when called on the loop thread.
    public var isOnLoopThread: Bool {
        pthread_equal(pthread_self(), pthread_t(loopThread.load(ordering: .acquiring))) != 0
    }

    // MARK: SerialExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mustWake = pendingJobs.append(job)
        guard mustWake else { return }
        if isOnLoopThread {
            // NB: jobs enqueued by jobs run after the loop has polled I/O once more (a zero timeout), so a
            // task that keeps yielding cannot starve sockets and timers.
            var now = timeval(tv_sec: 0, tv_usec: 0)
            event_add(wakeEvent, &now)
        } else {
            var one: UInt64 = 1
            _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
        }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isOnLoopThread, "not on the vmhost event loop thread")
    }

    private func runPendingJobs() {
        let jobs = pendingJobs.takeAll()
        let executor = asUnownedSerialExecutor()
        for job in jobs {
            job.runSynchronously(on: executor)
        }
    }
}
