import CZlib
import EventLoop

/// One piece of a gzip stream that can be appended to any gzip stream: raw deflate data compressed with a
/// fresh dictionary and ended by a full flush (byte-aligned, referring to nothing before it), with the CRC
/// and length of what it decompresses to.
///
/// NB: because a segment depends on nothing written before it, an event is compressed once and the same
/// bytes go to every gzip subscriber; each stream only combines CRCs (see ``GzipStreamEncoder``).
public struct GzipSegment: Sendable {
    /// The raw deflate bytes.
    public let deflated: [UInt8]
    /// CRC-32 of the uncompressed bytes.
    let crc: UInt32
    /// `crc32_combine_gen` operator for the uncompressed length (one multiplication per stream to combine).
    let combineOperator: UInt
    /// Number of uncompressed bytes.
    let length: Int

    /// Compresses `bytes` into a segment.
    @LoopActor
    public init(compressing bytes: UnsafeRawBufferPointer) {
        deflated = SegmentCompressor.shared.compress(bytes)
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        crc = UInt32(truncatingIfNeeded: crc32(0, base, uInt(bytes.count)))
        combineOperator = UInt(crc32_combine_gen(off_t(bytes.count)))
        length = bytes.count
    }
}

/// The per-stream side of a gzip-encoded event stream: the header before the first segment, the running
/// CRC and length, and the trailer that ends the member cleanly.
public struct GzipStreamEncoder {
    private var started = false
    private var crc: UInt32 = 0
    private var length: UInt32 = 0

    /// A stream before its first segment.
    public init() {}

    /// Gzip member header: magic, deflate, no flags, no mtime, no extra flags, OS unknown.
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]

    /// Counts `segment` into the trailer; returns what goes in front of its deflate bytes (the member
    /// header before the first segment, else nothing).
    public mutating func record(_ segment: GzipSegment) -> [UInt8] {
        crc = UInt32(
            truncatingIfNeeded: crc32_combine_op(uLong(crc), uLong(segment.crc), uLong(segment.combineOperator)))
        length &+= UInt32(truncatingIfNeeded: segment.length)
        guard !started else { return [] }
        started = true
        return Self.header
    }

    /// The bytes that end the member: an empty final block, then CRC-32 and length (little-endian).
    public mutating func finish() -> [UInt8] {
        var bytes: [UInt8] = started ? [] : Self.header
        started = true
        // NB: a fixed-Huffman block with BFINAL set holding only the end-of-block code: bits 1, 01, 0000000.
        bytes += [0x03, 0x00]
        for value in [crc, length] {
            for shift in stride(from: 0, to: 32, by: 8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
            }
        }
        return bytes
    }
}

/// One deflate state for the whole server, reset for every segment (a z_stream costs ~256 KiB; keeping one
/// per stream would dwarf the stream itself).
@LoopActor
final class SegmentCompressor {
    static let shared = SegmentCompressor()

    private var stream = z_stream()
    private let ready: Bool

    private init() {
        ready = vmh_deflate_init_raw(&stream, Z_DEFAULT_COMPRESSION, 8) == Z_OK
    }

    /// Raw deflate of `input` ended by a full flush; stored blocks if zlib could not be initialised.
    func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        guard ready, deflateReset(&stream) == Z_OK, let base = input.baseAddress else { return Self.stored(input) }
        // deflateBound covers a finished stream; a full flush adds at most an empty stored block (5 bytes).
        let capacity = Int(deflateBound(&stream, uLong(input.count))) + 16
        var output = [UInt8](repeating: 0, count: capacity)
        var produced = 0
        let ok = output.withUnsafeMutableBufferPointer { out -> Bool in
            stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let status = deflate(&stream, Z_FULL_FLUSH)
            produced = out.count - Int(stream.avail_out)
            stream.next_in = nil
            stream.next_out = nil
            return status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0
        }
        guard ok else { return Self.stored(input) }
        output.removeSubrange(produced...)
        return output
    }

    /// The same bytes as non-final stored blocks (at most 65,535 bytes each): valid deflate, no compression.
    nonisolated static func stored(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes: [UInt8] = []
        var offset = 0
        repeat {
            let count = min(65_535, input.count - offset)
            bytes += [0x00, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            bytes += input[offset..<(offset + count)]
            offset += count
        } while offset < input.count
        return bytes
    }
}
