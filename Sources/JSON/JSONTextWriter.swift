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
public struct JSONTextWriter: Sendable {
    /// The text written so far.
    public private(set) var bytes: [UInt8]
    /// Whether the next member or element needs a comma before it (a value was written at this level).
    private var needsComma = false

    /// A writer appending to `bytes`.
    public init(appendingTo bytes: [UInt8] = []) {
        self.bytes = bytes
    }

    /// Hands the text over, leaving the writer empty.
    public mutating func take() -> [UInt8] {
        needsComma = false
        defer { bytes = [] }
        return bytes
    }

    /// Empties the writer, keeping its buffer's capacity (a writer used for one text after another).
    public mutating func removeAll() {
        needsComma = false
        bytes.removeAll(keepingCapacity: true)
    }

    public mutating func openObject() {
        item { $0.append(UInt8(ascii: "{")) }
        needsComma = false
    }

    public mutating func closeObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func openArray() {
        item { $0.append(UInt8(ascii: "[")) }
        needsComma = false
    }

    public mutating func closeArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member's key and its colon; its value comes next. NB: a literal, written as it is: a key
    /// that would need escaping is a programming error (checked in debug builds).
    public mutating func key(_ key: StaticString) {
        assert(
            UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount).allSatisfy {
                $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
            }, "a key that needs escaping: \(key)")
        item { bytes in
            bytes.append(UInt8(ascii: "\""))
            bytes.append(key)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
        }
        needsComma = false
    }

    /// Writes `value`, or `null` when it is nil.
    public mutating func string(_ value: String?) {
        guard let value else { return null() }
        item { JSONWriter.writeString(value, into: &$0) }
    }

    /// Writes `value`, or `null` when it is nil.
    public mutating func int(_ value: Int?) {
        guard let value else { return null() }
        item { JSONWriter.writeInteger(value, into: &$0) }
    }

    public mutating func bool(_ value: Bool) {
        item { if value { $0.append("true") } else { $0.append("false") } }
    }

    public mutating func null() {
        item { $0.append("null") }
    }

    /// Writes a value tree (as ``JSONValue/serialize(into:)`` does).
    public mutating func value(_ value: JSONValue) {
        item { value.serialize(into: &$0) }
    }

    /// The one place separators are written: a comma when something came before at this level, then what
    /// `write` appends; the next item at this level needs a comma.
    @inline(__always)
    private mutating func item(_ write: (inout [UInt8]) -> Void) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        write(&bytes)
        needsComma = true
    }
}
