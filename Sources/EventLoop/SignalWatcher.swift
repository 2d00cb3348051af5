import CLibevent

/// Delivers POSIX signals (SIGINT, SIGTERM) as loop callbacks, through libevent's signal handling.
@LoopActor
public final class SignalWatcher {
    private var event: OpaquePointer?
    private let action: @LoopActor (Int32) -> Void

    /// Starts watching `signal`; `action` runs on the loop each time it arrives.
    public init(signal: Int32, action: @escaping @LoopActor (Int32) -> Void) {
        self.action = action
        let context = Unmanaged.passUnretained(self).toOpaque()
        event = event_new(
            EventLoop.shared.base, signal, Int16(EV_SIGNAL | EV_PERSIST),
            { signal, _, context in
                guard let context else { return }
                let watcher = Unmanaged<SignalWatcher>.fromOpaque(context).takeUnretainedValue()
                LoopActor.assumeIsolated { watcher.action(signal) }
            }, context)
        event_add(event, nil)
    }

    /// Stops watching.
    public func cancel() {
        event_del(event)
    }

    isolated deinit {
        if let event { event_free(event) }
    }
}
