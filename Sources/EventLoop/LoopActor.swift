/// The global actor whose executor is the libevent loop (``EventLoop/shared``).
///
/// Sessions, view models, HTTP handlers, the curl driver and timers are isolated to it: Swift 6 proves
/// they never race, while `async`/`await`, `Task` cancellation and sleeping (``LoopClock``) work as usual.
@globalActor
public actor LoopActor {
    /// The single instance.
    public static let shared = LoopActor()

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        EventLoop.shared.asUnownedSerialExecutor()
    }

    /// Runs `operation` as loop-isolated code from a C callback that libevent invoked on the loop thread.
    ///
    /// Traps when called on any other thread.
    public static func assumeIsolated<T>(_ operation: @LoopActor () throws -> T) rethrows -> T {
        typealias Isolated = @LoopActor () throws -> T
        typealias Plain = () throws -> T
        EventLoop.shared.checkIsolated()
        // NB: the same technique as `MainActor.assumeIsolated`: we just checked we are on the loop thread,
        // which is exactly what the isolation promises.
        return try withoutActuallyEscaping(operation) { operation in
            try unsafeBitCast(operation, to: Plain.self)()
        }
    }
}
