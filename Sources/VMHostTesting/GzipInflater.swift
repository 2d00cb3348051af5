import CZlib
import CZlibTesting

/// Inflates a gzip stream piece by piece, as a browser does while an event stream is open.
public final class GzipInflater {
    private var stream = z_stream()
    /// Whether the gzip stream's end (with its CRC and length checked) has been read.
    public private(set) var ended = false

    /// A fresh inflater.
    /// - Throws: ``TestClientError`` when zlib cannot start.
    public init() throws {
        guard vmh_inflate_init_gzip(&stream) == Z_OK else { throw TestClientError("inflateInit2 failed") }
    }

    deinit { inflateEnd(&stream) }

    /// The bytes `input` decompresses to; throws on corrupt data (including a wrong CRC or length).
    public func inflate(_ input: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var input = input
        try input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            var block = [UInt8](repeating: 0, count: 64 * 1024)
            repeat {
                let status = block.withUnsafeMutableBufferPointer { out -> Int32 in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    return CZlib.inflate(&stream, Z_SYNC_FLUSH)
                }
                output += block[..<(block.count - Int(stream.avail_out))]
                if status == Z_STREAM_END {
                    ended = true
                    break
                }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    throw TestClientError("inflate failed: \(status)")
                }
            } while stream.avail_out == 0 || stream.avail_in > 0
            stream.next_in = nil
            stream.next_out = nil
        }
        return output
    }
}
