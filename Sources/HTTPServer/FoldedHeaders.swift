import CLibevent
import CLibeventShims

/// The header lines of a reply that evhttp never reads, collected to go into its header list as one entry
/// (`vmh_header_lines`, which says why and which headers stay entries of their own).
///
/// Lines are added in order; ``add(to:)`` adds them to the list and starts over. A header that cannot fold is
/// added to the list at once (before the folded entry).
final class FoldedHeaders {
    private let lines: UnsafeMutablePointer<vmh_header_lines>

    init() {
        lines = .allocate(capacity: 1)
        lines.initialize(to: vmh_header_lines())
    }

    deinit {
        vmh_header_lines_free(lines)
        lines.deallocate()
    }

    /// Whether a `Content-Type` was added since the lines were last added to a list.
    var hasContentType: Bool { lines.pointee.has_content_type != 0 }

    /// Makes `Content-Length: length` the first line, for a reply to `request` with a body, where evhttp would
    /// add one itself (HTTP/1.1; it decides HTTP/1.0's by keep-alive). Call it first.
    func addContentLength(_ length: Int, of request: OpaquePointer) {
        _ = vmh_header_lines_content_length(lines, request, length)
    }

    /// Adds `name: value`: folded, or as an entry of `list` at once.
    func add(_ name: String, _ value: String, else list: UnsafeMutablePointer<evkeyvalq>?) {
        Self.withUTF8(name) { name in
            Self.withUTF8(value) { value in add(name, value, else: list) }
        }
    }

    /// Adds `name: value`: folded, or as an entry of `list` at once.
    func add(_ name: StaticString, _ value: String, else list: UnsafeMutablePointer<evkeyvalq>?) {
        let name = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        Self.withUTF8(value) { value in add(name, value, else: list) }
    }

    /// Adds `block`, lines made by ``block(_:)`` (headers that fold wherever they go).
    func add(_ block: Block) {
        block.bytes.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { _ = vmh_header_lines_append(lines, $0.baseAddress, $0.count) }
        }
    }

    /// Adds the lines so far to `list` as one entry, and starts over.
    func add(to list: UnsafeMutablePointer<evkeyvalq>?) {
        guard let list else {
            vmh_header_lines_clear(lines)
            return
        }
        _ = vmh_evhttp_add_header_lines(list, lines)
    }

    /// Headers folded once, to be added to many replies.
    struct Block: Sendable {
        fileprivate var bytes: [UInt8] = []
    }

    /// `headers` as lines to add to any reply, or nil if one of them must be an entry of its own, or is a
    /// `Content-Type` (which a reply must know it has: ``hasContentType``).
    static func block(_ headers: [HTTPHeader]) -> Block? {
        let folded = FoldedHeaders()
        for header in headers {
            var folds = false
            withUTF8(header.name) { name in
                withUTF8(header.value) { value in
                    folds =
                        vmh_header_lines_fold(
                            folded.lines, name.baseAddress, name.count, value.baseAddress, value.count)
                        == 1
                }
            }
            guard folds else { return nil }
        }
        guard !folded.hasContentType else { return nil }
        return Block(
            bytes: Array(UnsafeRawBufferPointer(start: folded.lines.pointee.bytes, count: folded.lines.pointee.length)))
    }

    private func add(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>,
        else list: UnsafeMutablePointer<evkeyvalq>?
    ) {
        name.withMemoryRebound(to: CChar.self) { name in
            value.withMemoryRebound(to: CChar.self) { value in
                _ = vmh_header_lines_add(lines, list, name.baseAddress, name.count, value.baseAddress, value.count)
            }
        }
    }

    /// Calls `body` with `text`'s UTF-8 bytes (in place for a native string).
    private static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }
}
