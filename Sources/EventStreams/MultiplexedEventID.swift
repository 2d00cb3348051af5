/// The `id` of a stream carrying several view models: `search:5,products:3`, the version of each that the
/// client holds after the event.
public enum MultiplexedEventID {
    /// Parses an id (a `Last-Event-ID`); malformed parts are ignored.
    public static func parse(_ text: String) -> [String: Int] {
        var result: [String: Int] = [:]
        for part in text.split(separator: ",") {
            let pieces = part.split(separator: ":", maxSplits: 1)
            guard pieces.count == 2, let version = Int(trimmed(pieces[1])) else { continue }
            result[trimmed(pieces[0])] = version
        }
        return result
    }

    /// The id for `versions`, in their order.
    public static func format(_ versions: [(name: String, version: Int)]) -> String {
        versions.map { "\($0.name):\($0.version)" }.joined(separator: ",")
    }

    /// `text` without leading and trailing spaces and tabs.
    private static func trimmed(_ text: Substring) -> String {
        var slice = text
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
