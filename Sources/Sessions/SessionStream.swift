import EventLoop
import HTTPServer

/// One SSE connection carrying every view model of a session (`GET /v1/sessions/{id}/events`).
///
/// Events are named `search.snapshot`, `search.patch`, `products.snapshot`, `products.patch`; every `id` is
/// `search:{version},products:{version}` (the versions the client holds after that event), so a resume
/// replays each view model's missed patches, or sends its snapshot.
@LoopActor
final class SessionStream: ChannelObserver {
    private let stream: ServerSentEventStream
    private let channels: [StateChannel]
    private let format: StreamFormat
    /// The version of each channel the client holds, by channel name.
    private var sent: [String: Int] = [:]
    private var needsSnapshot: Set<String> = []
    private var ended = false

    /// Attaches a multiplexed stream to `channels` and sends what the client is missing.
    /// - Parameter resumeFrom: the `Last-Event-ID` (`search:5,products:3`), if any.
    static func start(
        _ stream: ServerSentEventStream, channels: [StateChannel], format: StreamFormat, resumeFrom: String?
    ) {
        let observer = SessionStream(stream: stream, channels: channels, format: format)
        for channel in channels { channel.attach(observer, to: stream) }
        stream.onDrain = { [weak observer] in observer?.drained() }
        observer.sendInitial(resume: resumeFrom.map(Self.parseID) ?? [:])
    }

    private init(stream: ServerSentEventStream, channels: [StateChannel], format: StreamFormat) {
        self.stream = stream
        self.channels = channels
        self.format = format
    }

    /// Parses `search:5,products:3`; malformed parts are ignored.
    static func parseID(_ text: String) -> [String: Int] {
        var result: [String: Int] = [:]
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: ":", maxSplits: 1)
            guard pieces.count == 2, let version = Int(pieces[1].trimmingHTTPWhitespace()) else { continue }
            result[String(pieces[0].trimmingHTTPWhitespace())] = version
        }
        return result
    }

    private var currentID: String {
        channels.map { "\($0.name):\(sent[$0.name] ?? 0)" }.joined(separator: ",")
    }

    private func sendInitial(resume: [String: Int]) {
        var bytes = Array("retry: \(channels.first?.retryMilliseconds ?? 3000)\n".utf8)
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
                bytes += StateChannel.frame(event: "\(channel.name).snapshot", id: currentID, data: channel.stateBytes)
            } else {
                for (version, patch) in missed {
                    sent[channel.name] = version
                    bytes += StateChannel.frame(event: "\(channel.name).patch", id: currentID, data: patch)
                }
            }
        }
        stream.send(bytes)
    }

    func channel(_ channel: StateChannel, published version: Int, patch: [UInt8], patchEvent: ServerSentEventChunk) {
        guard !ended, !needsSnapshot.contains(channel.name) else { return }
        let previous = sent[channel.name]
        sent[channel.name] = version
        let event = format == .patches
            ? StateChannel.frame(event: "\(channel.name).patch", id: currentID, data: patch)
            : StateChannel.frame(event: "\(channel.name).snapshot", id: currentID, data: channel.stateBytes)
        if !stream.send(event) {
            sent[channel.name] = previous
            needsSnapshot.insert(channel.name)
        }
    }

    func channelClosed(_ channel: StateChannel) {
        guard !ended else { return }
        ended = true
        stream.end()
    }

    private func drained() {
        for channel in channels where needsSnapshot.contains(channel.name) {
            sent[channel.name] = channel.version
            let event = StateChannel.frame(event: "\(channel.name).snapshot", id: currentID, data: channel.stateBytes)
            guard stream.send(event) else { return }
            needsSnapshot.remove(channel.name)
        }
    }
}
