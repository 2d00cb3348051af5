import EventLoop
import EventStreams

/// One single-channel stream (`GET /v1/sessions/{id}/{viewModel}/events`): the channel's pre-framed
/// events, `id: N` being the version.
@LoopActor
final class Subscriber: ChannelObserver {
    // NB: what a delivery reads first (the writer, the format), the channel last: see ServerSentEventStream.
    private var writer: EventStreamWriter
    let format: StreamFormat
    private weak var channel: StateChannel?

    /// Attaches a stream to `channel`: sends `retry`, then either the patches after `lastEventID` (when
    /// still in the ring) or a snapshot, then every later change.
    static func start(_ sink: any EventSink, channel: StateChannel, format: StreamFormat, lastEventID: Int?) {
        let subscriber = Subscriber(sink: sink, channel: channel, format: format)
        // NB: unowned: the subscriber takes the callback back when it goes (deinit).
        sink.onDrain = { [unowned subscriber] in subscriber.drained() }
        channel.attach(subscriber, to: sink)
        var first = ServerSentEventFrame.retry(milliseconds: channel.retryMilliseconds)
        if let lastEventID, format == .patches, let missed = channel.patches(after: lastEventID) {
            for (version, patch) in missed {
                first.append(contentsOf: ServerSentEventFrame.event("patch", id: version, data: patch))
            }
        } else {
            first.append(contentsOf: channel.snapshotEvent.bytes)
        }
        sink.send(first)
    }

    private init(sink: any EventSink, channel: StateChannel, format: StreamFormat) {
        self.channel = channel
        self.format = format
        writer = EventStreamWriter(sink: sink, parts: channel.parts)
    }

    isolated deinit {
        writer.sink.onDrain = nil
    }

    func channel(_ channel: StateChannel, published version: Int, patch: [UInt8], patchEvent: ServerSentEventChunk) {
        writer.change(channel.name) { [format] sink in
            sink.send(format == .patches ? patchEvent : channel.snapshotEvent)
        }
    }

    func channelClosed(_ channel: StateChannel) {
        writer.end()
    }

    private func drained() {
        writer.drained { _, sink in
            guard let channel else { return false }
            return sink.send(channel.snapshotEvent)
        }
    }
}
