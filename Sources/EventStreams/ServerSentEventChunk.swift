import EventLoop

/// Bytes written to many streams (an event or a comment), with their gzip segment made on first need.
@LoopActor
public final class ServerSentEventChunk {
    /// The uncompressed bytes.
    public let bytes: [UInt8]
    private var segment: GzipSegment?

    /// Wraps framed SSE bytes.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The gzip segment, compressed once for all gzip streams.
    public var gzipSegment: GzipSegment {
        if let segment { return segment }
        let made = bytes.withUnsafeBytes { GzipSegment(compressing: $0) }
        segment = made
        return made
    }
}
