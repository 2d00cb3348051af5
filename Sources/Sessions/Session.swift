import EventLoop
import HTTPServer
import JSON
import ViewModels

/// One client's view models, each with its state channel, in registration order.
///
/// The session never knows about HTTP routes; routes reach its view models through ``slot(_:)``.
@LoopActor
public final class Session {
    /// The session id (the capability to use it).
    public let id: String
    /// The hosted view models in registration order (the order of the session resource and of resume ids).
    public let slots: [ViewModelSlot]
    /// When a request last touched the session.
    public internal(set) var lastActivity: ContinuousClock.Instant
    /// Whether the session was deleted or expired.
    public private(set) var isClosed = false
    /// The session's `Idempotency-Key`s and their answers.
    public let idempotencyKeys = IdempotencyKeys()

    /// Creates a session hosting one view model of each registration.
    public init(
        id: String, viewModels: [ViewModelRegistration], now: ContinuousClock.Instant, replayCapacity: Int = 64
    ) {
        self.id = id
        self.lastActivity = now
        slots = viewModels.map { ViewModelSlot.make($0, replayCapacity: replayCapacity) }
    }

    /// The view model named `name`, if the session hosts one.
    public func slot(_ name: String) -> ViewModelSlot? {
        slots.first { $0.name == name }
    }

    /// Every channel of the session.
    public var channels: [StateChannel] { slots.map(\.channel) }

    /// Open event streams across all channels (a multiplexed stream counts once per channel).
    public var openStreamCount: Int { slots.reduce(0) { $0 + $1.channel.subscriberCount } }

    /// Attaches a stream carrying every view model of the session (`GET /v1/sessions/{id}/events`).
    /// - Parameter resumeFrom: a `Last-Event-ID` of the form `search:5,products:3,photo:2`.
    public func subscribeAll(_ stream: ServerSentEventStream, format: StreamFormat, resumeFrom: String?) {
        SessionStream.start(stream, channels: channels, format: format, resumeFrom: resumeFrom)
    }

    /// The session resource: `{"id", "search": SearchState, "products": ProductListState, …}`.
    public var json: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        for slot in slots { object[slot.name] = slot.channel.state }
        return .object(object)
    }

    /// Cancels all in-flight work and ends every stream.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for slot in slots { slot.close() }
        idempotencyKeys.removeAll()
    }
}
