import EventLoop
import EventStreams

/// One SSE connection carrying every view model of a session (`GET /v1/sessions/{id}/events`).
///
/// Events are named `search.snapshot`, `search.patch`, `products.snapshot`, `products.patch`; every `id` is
/// `search:{version},products:{version}` (the versions the client holds after that event, see
/// ``MultiplexedEventID``), so a resume replays each view model's missed patches, or sends its snapshot.
@LoopActor
final class SessionStream: ChannelObserver {
    private let channels: [StateChannel]
    private let format: StreamFormat
    /// The version of each channel the client holds, by channel name.
    private var sent: [String: Int] = [:]
    private var writer: EventStreamWriter

    /// Attaches a multiplexed stream to `channels` and sends what the client is missing.
    /// - Parameter resumeFrom: the `Last-Event-ID` (`search:5,products:3`), if any.
    static func start(_ sink: any EventSink, channels: [StateChannel], format: StreamFormat, resumeFrom: String?) {
        let observer = SessionStream(sink: sink, channels: channels, format: format)
        // NB: unowned: the stream takes the callback back when it goes (deinit).
        sink.onDrain = { [unowned observer] in observer.drained() }
        for channel in channels { channel.attach(observer, to: sink) }
        observer.sendInitial(to: sink, resume: resumeFrom.map(MultiplexedEventID.parse) ?? [:])
    }

    private init(sink: any EventSink, channels: [StateChannel], format: StreamFormat) {
        self.channels = channels
        self.format = format
        writer = EventStreamWriter(sink: sink, parts: channels.map(\.name))
    }

    isolated deinit {
        writer.sink.onDrain = nil
    }

    private var currentID: String {
        MultiplexedEventID.format(channels.map { ($0.name, sent[$0.name] ?? 0) })
    }

    private func sendInitial(to sink: any EventSink, resume: [String: Int]) {
        var bytes = ServerSentEventFrame.retry(milliseconds: channels.first?.retryMilliseconds ?? 3000)
        var replays: [(StateChannel, [(version: Int, patch: [UInt8])])] = []
        for channel in channels {
            if format == .patches, let known = resume[channel.name], let missed = channel.patches(after: known) {
                sent[channel.name] = known
                replays.append((channel, missed))
            } else {
                replays.append((channel, []))
                sent[channel.name] = nil
            }
        }
        for (channel, missed) in replays {
            if sent[channel.name] == nil {
                sent[channel.name] = channel.version
                bytes += ServerSentEventFrame.event("\(channel.name).snapshot", id: currentID, data: channel.stateBytes)
            } else {
                for (version, patch) in missed {
                    sent[channel.name] = version
                    bytes += ServerSentEventFrame.event("\(channel.name).patch", id: currentID, data: patch)
                }
            }
        }
        sink.send(bytes)
    }

    func channel(_ channel: StateChannel, published version: Int, patch: [UInt8], patchEvent: ServerSentEventChunk) {
        writer.change(channel.name) { sink in
            format == .patches
                ? write(channel, at: version, event: "patch", data: patch, to: sink)
                : write(channel, at: version, event: "snapshot", data: channel.stateBytes, to: sink)
        }
    }

    func channelClosed(_ channel: StateChannel) {
        writer.end()
    }

    /// The reader drained after a refused write: the snapshot of each stale channel.
    private func drained() {
        writer.drained { name, sink in
            guard let channel = channels.first(where: { $0.name == name }) else { return false }
            return write(channel, at: channel.version, event: "snapshot", data: channel.stateBytes, to: sink)
        }
    }

    /// Writes `channel`'s event that brings the client to `version`, with the id that says so; returns
    /// whether the sink took it.
    private func write(
        _ channel: StateChannel, at version: Int, event: String, data: [UInt8], to sink: any EventSink
    ) -> Bool {
        let previous = sent[channel.name]
        sent[channel.name] = version
        // NB: a refused event never reaches the client: later ids must not claim its version.
        guard sink.send(ServerSentEventFrame.event("\(channel.name).\(event)", id: currentID, data: data)) else {
            sent[channel.name] = previous
            return false
        }
        return true
    }
}
