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
            lines.pointee.length = 0
            return
        }
        _ = vmh_evhttp_add_header_lines(list, lines)
    }

    /// Headers folded once, to be added to many replies.
    struct Block: Sendable {
        fileprivate var bytes: [UInt8] = []
    }

    /// `headers` as lines to add to any reply, or nil if one of them must be an entry of its own, or is a
    /// `Content-Type` (which folds only as the first line).
    static func block(_ headers: [HTTPHeader]) -> Block? {
        let folded = FoldedHeaders()
        // NB: a line first, so that a `Content-Type` does not fold as if it were first; dropped below.
        _ = vmh_header_lines_append(folded.lines, "X: y\r\n", 6)
        let start = folded.lines.pointee.length
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
        let bytes = UnsafeRawBufferPointer(start: folded.lines.pointee.bytes, count: folded.lines.pointee.length)
        return Block(bytes: Array(bytes[start...]))
    }

    private func add(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>,
        else list: UnsafeMutablePointer<evkeyvalq>?
    ) {
        name.withMemoryRebound(to: CChar.self) { name in
            value.withMemoryRebound(to: CChar.self) { value in
                guard vmh_header_lines_fold(lines, name.baseAddress, name.count, value.baseAddress, value.count) == 0
                else { return }
                Self.addEntry(name, value, to: list)
            }
        }
    }

    /// Adds `name: value` as an entry of its own (`evhttp_add_header`, which refuses line breaks).
    private static func addEntry(
        _ name: UnsafeBufferPointer<CChar>, _ value: UnsafeBufferPointer<CChar>,
        to list: UnsafeMutablePointer<evkeyvalq>?
    ) {
        let name = String(decoding: UnsafeRawBufferPointer(name), as: UTF8.self)
        let value = String(decoding: UnsafeRawBufferPointer(value), as: UTF8.self)
        name.withCString { name in
            value.withCString { value in _ = evhttp_add_header(list, name, value) }
        }
    }

    /// Calls `body` with `text`'s UTF-8 bytes (in place for a native string).
    private static func withUTF8<Result>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }
}
