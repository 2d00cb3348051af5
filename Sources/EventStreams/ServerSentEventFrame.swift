import JSON

/// The `text/event-stream` wire format of the events vmhost writes.
public enum ServerSentEventFrame {
    /// `id: ID\nevent: NAME\ndata: DATA\n\n`. DATA is compact JSON, which never contains a raw newline.
    public static func event(_ event: String, id: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + id.utf8.count + event.utf8.count + 24)
        bytes.append("id: ")
        bytes.append(utf8: id)
        bytes.append("\nevent: ")
        bytes.append(utf8: event)
        bytes.append("\ndata: ")
        bytes.append(contentsOf: data)
        bytes.append("\n\n")
        return bytes
    }

    /// `id: ID\nevent: NAME\ndata: DATA\n\n` with a numeric id, written without formatting a string.
    public static func event(_ event: StaticString, id: Int, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + event.utf8CodeUnitCount + 44)
        bytes.append("id: ")
        JSONValue.int(id).serialize(into: &bytes)
        bytes.append("\nevent: ")
        bytes.append(event)
        bytes.append("\ndata: ")
        bytes.append(contentsOf: data)
        bytes.append("\n\n")
        return bytes
    }

    /// `retry: MS\n`, the reconnection delay sent once at the start of a stream.
    public static func retry(milliseconds: Int) -> [UInt8] {
        Array("retry: \(milliseconds)\n".utf8)
    }
}
