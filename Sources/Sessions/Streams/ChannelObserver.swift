import EventLoop
import EventStreams

/// Something attached to a channel: told about every change and about the channel closing.
@LoopActor
protocol ChannelObserver: AnyObject {
    /// A new version was published. `patch` is the RFC 6902 JSON array; `patchEvent` the same framed as a
    /// single-channel SSE event (`id: N`, `event: patch`), shared by every single-channel stream.
    func channel(_ channel: StateChannel, published version: Int, patch: [UInt8], patchEvent: ServerSentEventChunk)
    /// The channel closed (session deleted or expired): end the stream.
    func channelClosed(_ channel: StateChannel)
}
