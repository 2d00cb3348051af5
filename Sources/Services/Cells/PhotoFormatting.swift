/// The display rules of the photo screen's cells (API.md "Photo view model"): how Flickr's names, dates and HTML
/// become the strings of a ``PhotoDetail`` and a ``PhotoComment``. The live service reads the JSON; the wording
/// lives here, next to the product cells' (``ProductFormatting``).
public enum PhotoFormatting {
    /// The real name unless it is empty (or only spaces), else the user name (else "").
    public static func personName(realName: String?, userName: String?) -> String {
        if let realName, realName.contains(where: { $0 != " " }) { return realName }
        return userName ?? ""
    }

    /// The plain text of a description or comment that Flickr sends as HTML (``HTMLText``).
    public static func plainText(html: String) -> String {
        HTMLText.plainText(html)
    }

    /// A comment's time: `unixSeconds` as RFC 3339 in UTC (`2023-07-05T10:00:00Z`); nil outside years 0...9999.
    public static func createdAt(unixSeconds: Int64) -> String? {
        RFC3339.utc(unixSeconds: unixSeconds)
    }

    /// When a photo was taken, in the camera's local time: `YYYY-MM-DDTHH:MM:SS` from Flickr's
    /// `YYYY-MM-DD HH:MM:SS`; nil unless the text is exactly that shape with a real month, day, hour, minute and
    /// second.
    public static func takenAt(flickrDate taken: String) -> String? {
        let bytes = Array(taken.utf8)
        guard bytes.count == 19 else { return nil }
        let separators: [Int: UInt8] = [
            4: UInt8(ascii: "-"), 7: UInt8(ascii: "-"), 10: UInt8(ascii: " "), 13: UInt8(ascii: ":"),
            16: UInt8(ascii: ":"),
        ]
        for (index, byte) in bytes.enumerated() {
            if let separator = separators[index] {
                guard byte == separator else { return nil }
            } else {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            }
        }
        func number(_ range: Range<Int>) -> Int {
            bytes[range].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        }
        guard (1...12).contains(number(5..<7)), (1...31).contains(number(8..<10)), number(11..<13) < 24,
            number(14..<16) < 60, number(17..<19) < 60
        else {
            return nil
        }
        var result = bytes
        result[10] = UInt8(ascii: "T")
        return String(decoding: result, as: UTF8.self)
    }

    /// `https://www.flickr.com/photos/{ownerID}/{id}/`; without an owner id, Flickr's redirect by photo id.
    public static func defaultPageURL(ownerID: String?, photoID id: String) -> String {
        guard let ownerID, !ownerID.isEmpty else { return "https://www.flickr.com/photo.gne?id=\(id)" }
        return "https://www.flickr.com/photos/\(ownerID)/\(id)/"
    }
}
