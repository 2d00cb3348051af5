import JSON

/// The `text/event-stream` wire format of the events vmhost writes.
public enum ServerSentEventFrame {
    /// `id: ID\nevent: NAME\ndata: DATA\n\n`. DATA is compact JSON, which never contains a raw newline.
    public static func event(_ event: String, id: String, data: [UInt8]) -> [UInt8] {
        frame(data: data, headroom: id.utf8.count + event.utf8.count) {
            $0.append(utf8: id)
        } event: {
            $0.append(utf8: event)
        }
    }

    /// `id: ID\nevent: NAME\ndata: DATA\n\n` with a numeric id, written without formatting a string.
    public static func event(_ event: StaticString, id: Int, data: [UInt8]) -> [UInt8] {
        frame(data: data, headroom: event.utf8CodeUnitCount + 20) {
            JSONValue.int(id).serialize(into: &$0)
        } event: {
            $0.append(event)
        }
    }

    /// The one layout of an event; `id` and `event` write those fields' values.
    @inline(__always)
    private static func frame(
        data: [UInt8], headroom: Int, id writeID: (inout [UInt8]) -> Void, event writeEvent: (inout [UInt8]) -> Void
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + headroom + 24)
        bytes.append("id: ")
        writeID(&bytes)
        bytes.append("\nevent: ")
        writeEvent(&bytes)
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
