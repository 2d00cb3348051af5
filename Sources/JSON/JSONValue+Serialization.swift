extension JSONValue {
    /// Appends the compact JSON text of the value (UTF-8, no whitespace, object members in insertion order).
    ///
    /// Strings are escaped per RFC 8259 (plus U+2028 and U+2029); non-finite doubles are written as `null`.
    public func serialize(into buffer: inout [UInt8]) {
        switch self {
        case .null:
            buffer.append("null")
        case .bool(let value):
            buffer.append(value ? "true" : "false")
        case .int(let value):
            JSONWriter.writeInteger(value, into: &buffer)
        case .double(let value):
            JSONWriter.writeDouble(value, into: &buffer)
        case .string(let value):
            JSONWriter.writeString(value, into: &buffer)
        case .array(let elements):
            buffer.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                element.serialize(into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        case .object(let object):
            object.serialize(into: &buffer)
        }
    }

    /// The compact JSON text of the value as UTF-8 bytes.
    public var serializedBytes: [UInt8] {
        var buffer: [UInt8] = []
        // NB: most values here are states and patches of a few hundred bytes: fewer regrowths.
        buffer.reserveCapacity(256)
        serialize(into: &buffer)
        return buffer
    }

    /// The compact JSON text of the value.
    public var serializedString: String {
        String(decoding: serializedBytes, as: UTF8.self)
    }
}

extension JSONObject {
    /// Appends the compact JSON text of the object (members in insertion order).
    public func serialize(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        var first = true
        for member in self {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.writeString(member.key, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            member.value.serialize(into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }
}

extension JSONObject {
    /// Appends the object with `first` as its first member, in place of any member with the same key: the same
    /// text as serialising a copy built that way, without building the copy (a channel's versioned state).
    public func serialize(into buffer: inout [UInt8], first: (key: String, value: JSONValue)) {
        buffer.append(UInt8(ascii: "{"))
        JSONWriter.writeString(first.key, into: &buffer)
        buffer.append(UInt8(ascii: ":"))
        first.value.serialize(into: &buffer)
        for member in self where member.key != first.key {
            buffer.append(UInt8(ascii: ","))
            JSONWriter.writeString(member.key, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            member.value.serialize(into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
