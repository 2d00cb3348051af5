import CZlib

/// Raw deflate (no zlib or gzip wrapper: the journal's tag byte says what follows) of the journal's checkpoints
/// and large patches, and the inflate that reads them back.
///
/// One deflate and one inflate state per journal, reset for every use. Level 1 and a 2,048-entry hash
/// (`memLevel` 4): a reset clears the hash, 64 KiB at zlib's default `memLevel` 8, which cost more than deflating a
/// small checkpoint; on a loaded session's checkpoints `memLevel` 4 gives the same bytes within 1 %
/// (docs/durable-sessions.md, "Key layout").
final class JournalCompressor {
    struct Failed: Error, CustomStringConvertible {
        var description: String
    }

    /// Inflated output larger than this is refused: what Redis holds is external data (a corrupt or hostile
    /// record must not make the process allocate without bound).
    static let maxInflatedBytes = 32 << 20

    private var deflater = z_stream()
    private var inflater = z_stream()
    private let deflaterReady: Bool
    private let inflaterReady: Bool

    init(level: Int32 = 1) {
        deflaterReady = vmh_deflate_init_raw(&deflater, level, 4) == Z_OK
        inflaterReady = vmh_inflate_init_raw(&inflater) == Z_OK
    }

    deinit {
        if deflaterReady { deflateEnd(&deflater) }
        if inflaterReady { inflateEnd(&inflater) }
    }

    /// Appends the raw deflate of `input` (a finished stream) to `output`; stored blocks if zlib failed.
    func compress(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) {
        guard deflaterReady, deflateReset(&deflater) == Z_OK, input.count > 0, let base = input.baseAddress else {
            Self.appendStored(input, to: &output)
            return
        }
        let start = output.count
        let bound = Int(deflateBound(&deflater, uLong(input.count)))
        output.append(contentsOf: repeatElement(0, count: bound))
        let produced = output.withUnsafeMutableBufferPointer { out -> Int? in
            deflater.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
            deflater.avail_in = uInt(input.count)
            deflater.next_out = out.baseAddress.map { $0 + start }
            deflater.avail_out = uInt(bound)
            let status = deflate(&deflater, Z_FINISH)
            defer {
                deflater.next_in = nil
                deflater.next_out = nil
            }
            return status == Z_STREAM_END ? bound - Int(deflater.avail_out) : nil
        }
        output.removeSubrange((start + (produced ?? 0))...)
        if produced == nil { Self.appendStored(input, to: &output) }
    }

    /// The bytes `compressed` (raw deflate) stands for.
    /// - Throws: ``Failed`` for data that is not a whole deflate stream or inflates beyond `limit`.
    func decompress(_ compressed: ArraySlice<UInt8>, limit: Int = maxInflatedBytes) throws(Failed) -> [UInt8] {
        guard inflaterReady, inflateReset(&inflater) == Z_OK else { throw Failed(description: "inflate unavailable") }
        var output: [UInt8] = []
        var produced = 0
        var status = Z_OK
        compressed.withUnsafeBytes { input in
            inflater.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            inflater.avail_in = uInt(input.count)
            defer {
                inflater.next_in = nil
                inflater.next_out = nil
            }
            while status == Z_OK, produced <= limit {
                // NB: grows by doubling, starting from a guess of 4× the input (JSON deflates ~4–6×).
                let room = max(1024, max(compressed.count * 4, output.count))
                output.append(contentsOf: repeatElement(0, count: room))
                output.withUnsafeMutableBufferPointer { out in
                    inflater.next_out = out.baseAddress.map { $0 + produced }
                    inflater.avail_out = uInt(out.count - produced)
                    status = inflate(&inflater, Z_NO_FLUSH)
                    produced = out.count - Int(inflater.avail_out)
                }
                // NB: no progress with output room left is a truncated stream.
                if status == Z_OK, inflater.avail_in == 0, inflater.avail_out > 0 { status = Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END, produced <= limit else {
            throw Failed(description: "not a whole deflate stream (zlib status \(status))")
        }
        output.removeSubrange(produced...)
        return output
    }

    /// `input` as non-final stored blocks then an empty final one: valid raw deflate, no compression.
    static func appendStored(_ input: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        var offset = 0
        while offset < input.count {
            let count = min(65_535, input.count - offset)
            output += [0x00, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            output += input[offset..<(offset + count)]
            offset += count
        }
        output += [0x01, 0x00, 0x00, 0xFF, 0xFF]
    }
}
