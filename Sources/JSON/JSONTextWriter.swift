import Bytes

/// Writes JSON text value by value into a byte buffer, without building a ``JSONValue`` tree first: for text
/// written on every change (the journal's view model snapshots), where the tree's allocations, its members'
/// copies and its release cost more than the text.
///
/// The writer places the separators: open an object or array, then give each member as ``key(_:)`` followed by
/// one value (a scalar, ``value(_:)``, or a nested object or array), and close it.
///
/// ```swift
/// var json = JSONTextWriter()
/// json.openObject()
/// json.key("text"); json.string("kittens")
/// json.key("pages"); json.openArray(); json.int(1); json.int(2); json.closeArray()
/// json.closeObject()
/// // json.bytes: {"text":"kittens","pages":[1,2]}
/// ```
///
/// NB: a ``ByteWriter``, not an `[UInt8]`: a snapshot is mostly small pieces (keys, quotes, `null`), each of
/// which an array's append made a generic copy. Hence noncopyable.
public struct JSONTextWriter: ~Copyable {
    private var text: ByteWriter
    /// Whether the next member or element needs a comma before it (a value was written at this level).
    private var needsComma = false

    /// A writer appending to `bytes`.
    /// - Parameter capacity: the bytes it has room for before it grows.
    public init(appendingTo bytes: [UInt8] = [], capacity: Int = 256) {
        text = ByteWriter(capacity: max(capacity, bytes.count))
        text.put(bytes)
    }

    /// The number of bytes written so far.
    public var count: Int { text.count }

    /// The text written so far (a copy).
    public var bytes: [UInt8] { text.bytes }

    /// Calls `body` with the text written so far, without a copy.
    public func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try text.withBytes(body)
    }

    /// Whether the text written so far is `bytes` (compared eight bytes at a time, without a copy).
    public func hasText(_ bytes: [UInt8]) -> Bool {
        text.withBytes { written in
            bytes.withUnsafeBytes { UnsafeRawBufferPointer(written).hasSameBytes(as: $0) }
        }
    }

    /// Hands the text over, leaving the writer empty.
    public mutating func take() -> [UInt8] {
        defer { removeAll() }
        return text.bytes
    }

    /// Empties the writer, keeping its buffer (a writer used for one text after another).
    public mutating func removeAll() {
        needsComma = false
        text.removeAll()
    }

    public mutating func openObject() {
        separate(reserving: 1)
        text.put(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func closeObject() {
        text.put(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func openArray() {
        separate(reserving: 1)
        text.put(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func closeArray() {
        text.put(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member's key and its colon; its value comes next. NB: a literal, written as it is: a key
    /// that would need escaping is a programming error (checked in debug builds).
    public mutating func key(_ key: StaticString) {
        let name = UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        assert(name.allSatisfy(JSONWriter.isPlain), "a key that needs escaping: \(key)")
        separate(reserving: name.count + 3)
        needsComma = false
        // NB: the quoted name and the colon with one capacity check (a snapshot has a key for each member, and
        // the journal writes one per command: a put each cost ~90 instructions a key).
        text.write(reserving: name.count + 3) { end in
            end[0] = UInt8(ascii: "\"")
            if let base = name.baseAddress { (end + 1).update(from: base, count: name.count) }
            end[1 + name.count] = UInt8(ascii: "\"")
            end[2 + name.count] = UInt8(ascii: ":")
            return 3 + name.count
        }
    }

    /// Writes `value`, or `null` when it is nil.
    public mutating func string(_ value: String?) {
        guard var value else { return null() }
        value.withUTF8 { utf8 in
            // NB: a string with nothing to escape (the common case) is copied as it is.
            var plain = true
            for byte in utf8 where !JSONWriter.isPlain(byte) {
                plain = false
                break
            }
            separate(reserving: utf8.count + 2)
            text.put(UInt8(ascii: "\""))
            if plain {
                text.put(utf8)
            } else {
                var escaped: [UInt8] = []
                JSONWriter.writeEscapedContents(utf8, into: &escaped)
                text.put(escaped)
            }
            text.put(UInt8(ascii: "\""))
        }
    }

    /// Writes `value`, or `null` when it is nil.
    public mutating func int(_ value: Int?) {
        guard let value else { return null() }
        separate(reserving: 20)
        text.putDecimal(value)
    }

    public mutating func bool(_ value: Bool) {
        separate(reserving: 5)
        text.put(value ? "true" : "false")
    }

    /// Writes a value given as its JSON text, a literal written as it is (a value that is always the same, in one
    /// piece rather than member by member). NB: the text must be one well-formed JSON value (checked in debug
    /// builds).
    public mutating func literal(_ json: StaticString) {
        let bytes = UnsafeBufferPointer(start: json.utf8Start, count: json.utf8CodeUnitCount)
        assert((try? JSONParser.parse(Array(bytes))) != nil, "not a JSON value: \(json)")
        separate(reserving: bytes.count)
        text.put(bytes)
    }

    public mutating func null() {
        separate(reserving: 4)
        text.put("null")
    }

    /// Writes a value tree (as ``JSONValue/serialize(into:)`` does).
    public mutating func value(_ value: JSONValue) {
        var tree: [UInt8] = []
        value.serialize(into: &tree)
        separate(reserving: tree.count)
        text.put(tree)
    }

    /// The one place separators are written: room for a comma and `bytes` more, the comma when something came
    /// before at this level; the next item at this level needs a comma.
    @inline(__always)
    private mutating func separate(reserving bytes: Int) {
        text.reserve(bytes + 1)
        if needsComma { text.put(UInt8(ascii: ",")) }
        needsComma = true
    }
}
