import EventLoop
import HTTPServer
import JSON
import ViewModels

/// One client's view models and their state channels.
///
/// The session never knows about HTTP; routes reach its view models and channels.
@LoopActor
public final class Session {
    /// The session id (the capability to use it).
    public let id: String
    /// The Flickr search view model.
    public let search: SearchViewModel
    /// The search's state stream.
    public let searchChannel: StateChannel
    /// The product list view model.
    public let products: ProductListViewModel
    /// The product list's state stream.
    public let productsChannel: StateChannel
    /// When a request last touched the session.
    public internal(set) var lastActivity: ContinuousClock.Instant
    /// Whether the session was deleted or expired.
    public private(set) var isClosed = false

    /// Creates a session and wires each view model to its channel.
    public init(
        id: String, search: SearchViewModel, products: ProductListViewModel, now: ContinuousClock.Instant,
        replayCapacity: Int = 64
    ) {
        self.id = id
        self.search = search
        self.products = products
        self.lastActivity = now
        searchChannel = StateChannel(name: "search", initial: search.state.json, replayCapacity: replayCapacity)
        productsChannel = StateChannel(name: "products", initial: products.state.json, replayCapacity: replayCapacity)
        search.onChange = { [weak searchChannel] state in searchChannel?.publish(state.json) }
        products.onChange = { [weak productsChannel] state in productsChannel?.publish(state.json) }
    }

    /// Every channel of the session.
    public var channels: [StateChannel] { [searchChannel, productsChannel] }

    /// Open event streams across all channels (a multiplexed stream counts once per channel).
    public var openStreamCount: Int { channels.reduce(0) { $0 + $1.subscriberCount } }

    /// Attaches a stream carrying every view model of the session (`GET /v1/sessions/{id}/events`).
    /// - Parameter resumeFrom: a `Last-Event-ID` of the form `search:5,products:3`.
    public func subscribeAll(_ stream: ServerSentEventStream, format: StreamFormat, resumeFrom: String?) {
        SessionStream.start(stream, channels: channels, format: format, resumeFrom: resumeFrom)
    }

    /// The session resource: `{"id", "search": SearchState, "products": ProductListState}`.
    public var json: JSONValue {
        ["id": .string(id), "search": searchChannel.state, "products": productsChannel.state]
    }

    /// Cancels all in-flight work and ends every stream.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        search.onChange = nil
        products.onChange = nil
        search.shutdown()
        products.cancel()
        for channel in channels { channel.close() }
    }
}
