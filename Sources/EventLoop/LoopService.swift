/// A long-lived part of the server on the loop (an HTTP server, the journal, session expiry, the fake
/// upstream), all stopped the same way: ``shutdown()`` finishes the part's work gracefully and returns once
/// it has stopped. It is awaited, never polled: a part that waits for something (deferred requests, a
/// socket's last bytes, Redis replies) resumes when that thing reports its end, within a bound of its own.
///
/// `VMHostApplication` keeps its parts in a list and shuts them down one after the other, in order.
@LoopActor
public protocol LoopService: AnyObject {
    /// Finishes the part's work and stops it; returns once it has stopped. Idempotent: a later call returns
    /// once the first has finished.
    func shutdown() async
}
