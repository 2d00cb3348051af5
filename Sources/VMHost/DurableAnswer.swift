import EventLoop
import HTTPServer
import Sessions

/// A command's answer, sent once what its session changed is durable (``Session/whenDurable(_:)``), or the
/// handover answer when another process took the session over first (``Routes/handedOver``).
///
/// NB: one object for what closures nested in one another held (the answer, the `respond` the server gives, the
/// waiter the session keeps): each closure's context was an allocation, freed again once the command was
/// answered (~500 instructions a command with the journal on, callgrind; docs/performance.md, issue 26's tenth
/// stop). The server and the session get this object's methods, whose context is the object itself; the server's
/// `respond` is the request's own method (``HTTPRequest``, sixteenth stop).
@LoopActor
final class DurableAnswer {
    private let session: Session
    private let response: @LoopActor () -> HTTPResponse
    private var respond: (@LoopActor (HTTPResponse) -> Void)?

    init(session: Session, response: @escaping @LoopActor () -> HTTPResponse) {
        self.session = session
        self.response = response
    }

    /// Waits for the session's changes to be durable, then answers through `respond`
    /// (``HTTPHandlerResult/callback(_:)``).
    func start(_ respond: @escaping @LoopActor (HTTPResponse) -> Void) {
        self.respond = respond
        session.whenDurable(finish)
    }

    private func finish() {
        guard let respond else { return }
        self.respond = nil
        respond(session.wasHandedOver ? Routes.handedOver : response())
    }
}
