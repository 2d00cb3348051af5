/// The `text/event-stream` wire format of the events vmhost writes.
public enum ServerSentEventFrame {
    /// `id: ID\nevent: NAME\ndata: DATA\n\n`. DATA is compact JSON, which never contains a raw newline.
    public static func event(_ event: String, id: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + id.utf8.count + event.utf8.count + 24)
        bytes.append(contentsOf: "id: ".utf8)
        bytes.append(contentsOf: id.utf8)
        bytes.append(contentsOf: "\nevent: ".utf8)
        bytes.append(contentsOf: event.utf8)
        bytes.append(contentsOf: "\ndata: ".utf8)
        bytes.append(contentsOf: data)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }

    /// `retry: MS\n`, the reconnection delay sent once at the start of a stream.
    public static func retry(milliseconds: Int) -> [UInt8] {
        Array("retry: \(milliseconds)\n".utf8)
    }
}
