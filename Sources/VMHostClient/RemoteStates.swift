import Foundation
import JSON

/// The states of one server view model as an async sequence: the current version first, then every later one in
/// order (`version` strictly increases), across reconnections, until the task iterating it is cancelled or the
/// session ends (then it throws `VMHostClientError.sessionNotFound`).
///
/// Iterating it subscribes to the session's one multiplexed event stream, which is open while at least one
/// sequence of the session is being iterated; ending the iteration unsubscribes.
public struct RemoteStates<State: RemoteState>: AsyncSequence, Sendable {
    public typealias Element = State
    public typealias Failure = any Error

    let stream: SessionEventStream

    /// Starts a subscription when first asked for an element.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: SessionEventStream
        let states: AsyncThrowingStream<State, any Error>
        let continuation: AsyncThrowingStream<State, any Error>.Continuation
        var inner: AsyncThrowingStream<State, any Error>.AsyncIterator
        var subscribed = false
        let id: UInt64

        /// The next state: the first call subscribes (and opens the session's stream when it is the first
        /// subscriber); throws when the session ended or the client cannot read what the server sends.
        public mutating func next() async throws -> State? {
            if !subscribed {
                subscribed = true
                let continuation = continuation
                let stream = stream
                let id = id
                let decoder = StateDecoder.make()
                continuation.onTermination = { _ in Task { await stream.unsubscribe(id: id) } }
                await stream.subscribe(
                    id: id, name: State.viewModelName,
                    deliver: { json in
                        do {
                            continuation.yield(try decoder.decode(State.self, from: Data(json.serializedBytes)))
                        } catch {
                            // NB: the server and this client disagree on the state's shape: loud, not a stale screen.
                            continuation.finish(
                                throwing: VMHostClientError.invalidResponse(message: "\(State.self): \(error)"))
                        }
                    },
                    finish: { error in continuation.finish(throwing: error) })
            }
            return try await inner.next()
        }
    }

    /// An iterator of its own: each iteration is one subscriber of the session's stream.
    public func makeAsyncIterator() -> AsyncIterator {
        let (states, continuation) = AsyncThrowingStream<State, any Error>.makeStream()
        return AsyncIterator(
            stream: stream, states: states, continuation: continuation, inner: states.makeAsyncIterator(),
            id: SubscriberIDs.next())
    }
}

/// Ids of subscribers, unique in the process.
enum SubscriberIDs {
    private static let counter = Counter()

    static func next() -> UInt64 { counter.next() }

    private final class Counter: @unchecked Sendable {
        // NB: NSLock rather than Synchronization.Mutex, which Apple platforms have only from their 2024 releases.
        private let lock = NSLock()
        private var value: UInt64 = 0

        func next() -> UInt64 {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }
}
