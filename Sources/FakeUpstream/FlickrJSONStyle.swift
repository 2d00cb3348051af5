import HTTPServer
import JSON

/// JSON written the way Flickr writes it: every `/` as `\/` and every non-ASCII character as `\uXXXX`
/// (UTF-16 surrogate pairs beyond the Basic Multilingual Plane).
enum FlickrJSONStyle {
    /// A `200` JSON response of `value` in Flickr's style.
    static func response(_ value: JSONValue) -> HTTPResponse {
        .json(bytes: encode(value))
    }

    /// `value` serialised in Flickr's style.
    ///
    /// Both rewrites are safe on serialised JSON: outside strings there is neither a `/` nor a non-ASCII
    /// character, and inside strings both escapes mean the same text.
    static func encode(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in value.serializedString.unicodeScalars {
            if scalar == "/" {
                bytes += Array(#"\/"#.utf8)
            } else if scalar.isASCII {
                bytes.append(UInt8(scalar.value))
            } else {
                for unit in String(scalar).utf16 { bytes += Array(escape(unit).utf8) }
            }
        }
        return bytes
    }

    private static func escape(_ unit: UInt16) -> String {
        let hex = String(unit, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}
