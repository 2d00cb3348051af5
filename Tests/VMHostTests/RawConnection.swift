import JSON
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// One client connection written byte by byte, for requests no well-behaved client sends and clients that
/// stall. Blocking socket work runs on a thread of its own (``offPool(_:)``).
final class RawConnection: @unchecked Sendable {
    private let socket: TestSocket

    private init(socket: TestSocket) { self.socket = socket }

    static func open(port: Int, timeoutSeconds: Int = 10, receiveBufferBytes: Int? = nil) async throws -> RawConnection
    {
        try await offPool {
            RawConnection(
                socket: try TestSocket(
                    port: port, timeoutSeconds: timeoutSeconds, receiveBufferBytes: receiveBufferBytes))
        }
    }

    func send(_ bytes: [UInt8]) async throws {
        try await offPool { try self.socket.write(bytes) }
    }

    /// The next whole response.
    func response(method: String = "GET") async throws -> TestHTTPResponse {
        try await offPool { try self.socket.readResponse(method: method) }
    }

    /// The next response, or nil when the connection closed (or was reset) before one arrived.
    func responseOrClose(method: String) async -> TestHTTPResponse? {
        try? await response(method: method)
    }

    /// The next chunk of a chunked body, as it came on the wire; nil at the body's end.
    func nextChunk() async throws -> [UInt8]? {
        try await offPool { try TestHTTPClient.readChunk(from: self.socket) }
    }

    /// The next response head; its body stays for ``follow(untilSearchVersion:)`` or ``nextChunk()``.
    func responseHead() async throws -> TestHTTPResponse {
        try await offPool { try self.socket.readResponseHead() }
    }

    /// Whether the server closes the connection within `timeout` (bytes arriving meanwhile are skipped).
    func closedByPeer(within timeout: Duration) async -> Bool {
        (try? await offPool { self.socket.closedByPeer(within: timeout) }) ?? false
    }

    func close() { socket.close() }

    enum StreamOutcome: Sendable {
        /// The stream ended before the version arrived.
        case dropped
        /// `event` carried the version; `patchesBefore` patches (counting `event` when it is one) and
        /// `snapshotsBefore` snapshots of the search state came before it (the stream's first event is one),
        /// `gapless` when each patch's version was one more than the version before it.
        case reached(event: RawEvent, patchesBefore: Int, snapshotsBefore: Int, gapless: Bool)
        /// Nothing arrived for the read timeout before the version did.
        case stalled(lastEvents: [String], unparsedBytes: Int)
    }

    /// Reads a chunked event stream until an event carries search version `target`.
    ///
    /// Megabytes per stream: read with memchr-speed scanning, only ids and names are decoded, and data only for
    /// snapshots (`TestEventStream` decodes every event as text, far too slow for this in a debug build).
    func follow(untilSearchVersion target: Int) async throws -> StreamOutcome {
        try await offPool {
            // NB: the backlog is megabytes; a 1 MiB buffer reads it in large segments instead of 2 KiB ones.
            self.socket.setReceiveBufferSize(1 << 20)
            var reader = RawEventReader()
            var patches = 0
            var snapshots = 0
            var gapless = true
            var lastVersion: Int?
            var lastEvents: [String] = []
            while true {
                while let event = reader.nextEvent() {
                    lastEvents = Array((lastEvents + ["\(event.id ?? "-") \(event.name)"]).suffix(4))
                    guard let version = event.searchVersion else { continue }
                    if event.name.hasSuffix("patch") {
                        patches += 1
                        if let lastVersion, version != lastVersion + 1 { gapless = false }
                    }
                    lastVersion = version
                    if version >= target {
                        return .reached(
                            event: event, patchesBefore: patches, snapshotsBefore: snapshots, gapless: gapless)
                    }
                    if event.name == "snapshot" || event.name == "search.snapshot" { snapshots += 1 }
                }
                if reader.ended { return .dropped }
                let received: [UInt8]
                do {
                    received = try self.socket.readSome()
                } catch {
                    return .stalled(lastEvents: lastEvents, unparsedBytes: reader.unparsedBytes)
                }
                if received.isEmpty { return .dropped }
                reader.feed(received)
            }
        }
    }
}

/// One server-sent event as ``RawEventReader`` saw it.
struct RawEvent: Sendable {
    var id: String?
    var name: String
    /// The data, kept for snapshots only.
    var data: [UInt8]?

    /// The search version in the id: `N`, or `search:N,products:M` on the multiplexed stream.
    var searchVersion: Int? {
        guard let id else { return nil }
        if let version = Int(id) { return version }
        for part in id.split(separator: ",") where part.hasPrefix("search:") {
            return Int(part.dropFirst("search:".count))
        }
        return nil
    }

    var json: JSONValue? { data.flatMap { try? JSONParser.parse($0) } }
}

/// Undoes chunked transfer coding and splits the text into events, scanning with memmem/memchr.
struct RawEventReader {
    private var raw: [UInt8] = []
    private var rawStart = 0
    private var text: [UInt8] = []
    private var textStart = 0
    private(set) var ended = false

    /// Bytes received but not yet returned as events.
    var unparsedBytes: Int { raw.count - rawStart + text.count - textStart }

    mutating func feed(_ bytes: [UInt8]) {
        raw += bytes
        dechunk()
    }

    private mutating func dechunk() {
        while !ended, let lineEnd = Self.find(Self.crlf, in: raw, from: rawStart) {
            let sizeText = String(decoding: raw[rawStart..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else {
                ended = true  // not chunked framing: treat as the end
                break
            }
            let dataStart = lineEnd + 2
            guard raw.count >= dataStart + size + 2 else { break }
            if size == 0 {
                ended = true
                break
            }
            text += raw[dataStart..<(dataStart + size)]
            rawStart = dataStart + size + 2
        }
        if rawStart > 0 && rawStart * 2 >= raw.count {
            raw.removeSubrange(0..<rawStart)
            rawStart = 0
        }
    }

    /// The next complete event (comment-only blocks are skipped), or nil until more bytes arrive.
    mutating func nextEvent() -> RawEvent? {
        while let blockEnd = Self.find(Self.blankLine, in: text, from: textStart) {
            var event = RawEvent(id: nil, name: "message", data: nil)
            var hasField = false
            var dataRange: Range<Int>?
            var lineStart = textStart
            while lineStart < blockEnd {
                let lineEnd = Self.find(Self.newline, in: text, from: lineStart).map { min($0, blockEnd) } ?? blockEnd
                if Self.hasPrefix(Self.dataField, text, at: lineStart) {
                    dataRange = (lineStart + 6)..<lineEnd
                    hasField = true
                } else if Self.hasPrefix(Self.idField, text, at: lineStart) {
                    event.id = String(decoding: text[(lineStart + 4)..<lineEnd], as: UTF8.self)
                    hasField = true
                } else if Self.hasPrefix(Self.eventField, text, at: lineStart) {
                    event.name = String(decoding: text[(lineStart + 7)..<lineEnd], as: UTF8.self)
                    hasField = true
                }
                lineStart = lineEnd + 1
            }
            textStart = blockEnd + 2
            if let dataRange, event.name.hasSuffix("snapshot") { event.data = Array(text[dataRange]) }
            if textStart * 2 >= text.count {
                text.removeSubrange(0..<textStart)
                textStart = 0
            }
            if hasField { return event }
        }
        return nil
    }

    private static let crlf = bytes("\r\n")
    private static let newline = bytes("\n")
    private static let blankLine = bytes("\n\n")
    private static let dataField = bytes("data: ")
    private static let idField = bytes("id: ")
    private static let eventField = bytes("event: ")

    private static func hasPrefix(_ prefix: [UInt8], _ text: [UInt8], at offset: Int) -> Bool {
        guard offset + prefix.count <= text.count else { return false }
        for (index, byte) in prefix.enumerated() where text[offset + index] != byte { return false }
        return true
    }

    /// The offset of `needle` in `haystack` at or after `offset` (memchr for its first byte, then a compare).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from offset: Int) -> Int? {
        guard let first = needle.first, offset < haystack.count else { return nil }
        return haystack.withUnsafeBytes { hay -> Int? in
            guard let base = hay.baseAddress else { return nil }
            var position = offset
            while position + needle.count <= hay.count {
                guard let found = memchr(base + position, Int32(first), hay.count - position) else { return nil }
                let candidate = base.distance(to: UnsafeRawPointer(found))
                guard candidate + needle.count <= hay.count else { return nil }
                if needle.count == 1 || hasPrefix(needle, haystack, at: candidate) { return candidate }
                position = candidate + 1
            }
            return nil
        }
    }
}
