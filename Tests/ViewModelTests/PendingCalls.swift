import EventLoop

/// The calls a hand-answered fake service holds for the test: each waits until the test answers it, or ends when its
/// task is cancelled (the transfer would have been aborted). The bookkeeping of every fake service, written once.
@LoopActor
final class PendingCalls<Call, Answer> {
    /// Every call made, in order.
    private(set) var made: [Call] = []
    /// The calls whose task was cancelled, in order.
    private(set) var cancelled: [Call] = []
    private var waiting: [(id: Int, call: Call, continuation: CheckedContinuation<Answer, any Error>)] = []
    private var nextID = 0

    /// The calls waiting for an answer, oldest first.
    var pending: [Call] { waiting.map(\.call) }

    /// Makes `call` and waits for the test's answer (or the task's cancellation).
    func wait(_ call: Call) async throws -> Answer {
        made.append(call)
        let id = nextID
        nextID += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // NB: a task cancelled before its call ran its cancellation handler first, which found nothing.
                guard !Task.isCancelled else {
                    cancelled.append(call)
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiting.append((id, call, continuation))
            }
        } onCancel: {
            LoopActor.assumeIsolated { self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        let entry = waiting.remove(at: index)
        cancelled.append(entry.call)
        entry.continuation.resume(throwing: CancellationError())
    }

    /// Answers the oldest waiting call that `matches` with `result`; false when none waits.
    func answer(_ result: sending Result<Answer, any Error>, toFirst matches: (Call) -> Bool = { _ in true }) -> Bool {
        guard let index = waiting.firstIndex(where: { matches($0.call) }) else { return false }
        waiting.remove(at: index).continuation.resume(with: result)
        return true
    }
}
