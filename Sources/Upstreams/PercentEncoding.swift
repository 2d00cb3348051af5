/// Percent-encoding of URL query components (RFC 3986), without Foundation.
public enum PercentEncoding {
    /// Encodes `text` for use as a query name or value: the unreserved characters `A-Z a-z 0-9 - . _ ~` stay,
    /// every other byte of the UTF-8 encoding becomes `%XX` (upper-case hex). `"café & crème/1"` →
    /// `"caf%C3%A9%20%26%20cr%C3%A8me%2F1"`.
    public static func queryComponent(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Builds `name=value&name=value` with every name and value encoded by ``queryComponent(_:)``.
    public static func query(_ parameters: [(name: String, value: String)]) -> String {
        parameters.map { "\(queryComponent($0.name))=\(queryComponent($0.value))" }.joined(separator: "&")
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
