import EventLoop
import Testing
import VMHostTesting

@testable import EventStreams

@Suite("Gzip segments")
struct GzipSegmentTests {
    /// Segments compressed independently, in any number and order per stream, make one valid gzip member whose
    /// CRC and length check: what lets one compressed event go to every gzip stream.
    @Test @LoopActor func segmentsConcatenateIntoOneValidMember() throws {
        let events = (1...50).map { index in
            ServerSentEventChunk(
                ServerSentEventFrame.event(
                    "patch", id: index, data: Array("[{\"op\":\"add\",\"value\":\(index)}]".utf8)))
        }
        var first = GzipStreamEncoder()
        var second = GzipStreamEncoder()
        var firstBytes: [UInt8] = []
        var secondBytes: [UInt8] = []
        for (index, event) in events.enumerated() {
            firstBytes += first.record(event.gzipSegment) + event.gzipSegment.deflated
            if index % 3 == 0 { secondBytes += second.record(event.gzipSegment) + event.gzipSegment.deflated }
        }
        firstBytes += first.finish()
        secondBytes += second.finish()
        let inflater = try GzipInflater()
        #expect(try inflater.inflate(firstBytes) == events.flatMap(\.bytes))
        #expect(inflater.ended)
        let other = try GzipInflater()
        #expect(
            try other.inflate(secondBytes) == events.enumerated().filter { $0.offset % 3 == 0 }.flatMap(\.element.bytes)
        )
        #expect(other.ended)
    }

    @Test @LoopActor func anEmptyStreamStillEndsAsAValidMember() throws {
        var encoder = GzipStreamEncoder()
        let inflater = try GzipInflater()
        #expect(try inflater.inflate(encoder.finish()) == [])
        #expect(inflater.ended)
    }

    /// A chunk is compressed once, however many streams ask for its segment.
    @Test @LoopActor func aChunkCompressesOnce() {
        let chunk = ServerSentEventChunk(Array(String(repeating: "data: x\n", count: 100).utf8))
        let segment = chunk.gzipSegment
        #expect(segment.deflated.count < chunk.bytes.count)
        #expect(chunk.gzipSegment.deflated == segment.deflated)
    }

    @Test @LoopActor func independentSegmentsMakeOneValidMember() throws {
        // Segments compressed independently and concatenated by one stream's encoder.
        let texts = [
            "retry: 3000\n", String(repeating: "id: 1\nevent: patch\ndata: [1,2,3]\n\n", count: 50), "",
            ": keepalive\n\n",
        ]
        var encoder = GzipStreamEncoder()
        var wire: [UInt8] = []
        for text in texts {
            let segment = Array(text.utf8).withUnsafeBytes { GzipSegment(compressing: $0) }
            wire += encoder.record(segment) + segment.deflated
        }
        wire += encoder.finish()
        let inflater = try GzipInflater()
        #expect(String(decoding: try inflater.inflate(wire), as: UTF8.self) == texts.joined())
        #expect(inflater.ended)
    }

    @Test func storedBlocksAreTheFallback() throws {
        // What a stream gets if zlib could not compress: the same bytes in stored blocks, still valid.
        let text = Array(String(repeating: "x", count: 70_000).utf8)
        let deflated = text.withUnsafeBytes { SegmentCompressor.stored($0) }
        #expect(deflated.count == text.count + 10, "two stored blocks of at most 65,535 bytes")
        let inflater = try GzipInflater()
        #expect(try inflater.inflate(GzipStreamEncoder.header + deflated) == text)
    }
}
