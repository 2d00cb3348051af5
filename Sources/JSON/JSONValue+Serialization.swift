extension JSONValue {
    /// Appends the compact JSON text of the value (UTF-8, no whitespace, object members in insertion order).
    ///
    /// Strings are escaped per RFC 8259 (plus U+2028 and U+2029); non-finite doubles are written as `null`.
    public func serialize(into buffer: inout [UInt8]) {
        switch self {
        case .null:
            buffer.append(contentsOf: "null".utf8)
        case .bool(let value):
            buffer.append(contentsOf: value ? "true".utf8 : "false".utf8)
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
