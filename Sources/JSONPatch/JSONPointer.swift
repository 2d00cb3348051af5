import JSON

/// An RFC 6901 JSON Pointer: a path of reference tokens into a JSON document.
///
/// `tokens` hold the decoded tokens; ``description`` is the encoded form (`~` as `~0`, `/` as `~1`).
/// The empty pointer (no tokens, encoded as `""`) refers to the whole document.
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The decoded reference tokens, outermost first.
    public var tokens: [String]

    /// The pointer to the whole document.
    public static let root = JSONPointer(tokens: [])

    /// A pointer from decoded tokens.
    public init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Parses the encoded form: `""` or `/`-separated tokens with `~0` for `~` and `~1` for `/`.
    public init(parsing string: String) throws(JSONPatchError) {
        guard !string.isEmpty else {
            tokens = []
            return
        }
        guard string.hasPrefix("/") else {
            throw JSONPatchError("invalid JSON pointer \"\(string)\": must be empty or start with \"/\"")
        }
        var decoded: [String] = []
        for encoded in string.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let token = Self.decode(encoded) else {
                throw JSONPatchError("invalid JSON pointer \"\(string)\": \"~\" must be followed by \"0\" or \"1\"")
            }
            decoded.append(token)
        }
        tokens = decoded
    }

    /// Whether this is the pointer to the whole document.
    public var isRoot: Bool { tokens.isEmpty }

    /// The encoded form, e.g. `/a~1b/0`.
    public var description: String {
        var result = ""
        for token in tokens {
            result.append("/")
            if token.utf8.contains(UInt8(ascii: "~")) || token.utf8.contains(UInt8(ascii: "/")) {
                for character in token.unicodeScalars {
                    switch character {
                    case "~": result.append("~0")
                    case "/": result.append("~1")
                    default: result.unicodeScalars.append(character)
                    }
                }
            } else {
                result.append(token)
            }
        }
        return result
    }

    /// This pointer extended by an object key (or any raw token).
    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(tokens: tokens + [token])
    }

    /// This pointer extended by an array index.
    public func appending(_ index: Int) -> JSONPointer {
        appending(String(index))
    }

    /// The value this pointer refers to in `document`, or nil when there is none.
    public func resolve(in document: JSONValue) -> JSONValue? {
        try? JSONEditor.value(at: self, in: document)
    }

    /// Decodes one token, or nil when it contains an invalid `~` escape.
    private static func decode(_ encoded: Substring) -> String? {
        guard encoded.utf8.contains(UInt8(ascii: "~")) else { return String(encoded) }
        var result = ""
        var escaping = false
        for scalar in encoded.unicodeScalars {
            if escaping {
                switch scalar {
                case "0": result.append("~")
                case "1": result.append("/")
                default: return nil
                }
                escaping = false
            } else if scalar == "~" {
                escaping = true
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return escaping ? nil : result
    }
}

extension JSONPointer {
    /// Appends ``description`` as a JSON string. Tokens that need neither pointer nor JSON escapes (the usual
    /// member names and indices) are copied as they are, without building the description (a patch writes
    /// one pointer per operation).
    func serializeAsJSONString(into buffer: inout [UInt8]) {
        for token in tokens where !Self.isPlain(token) {
            JSONValue.string(description).serialize(into: &buffer)
            return
        }
        buffer.append(UInt8(ascii: "\""))
        for token in tokens {
            buffer.append(UInt8(ascii: "/"))
            buffer.append(utf8: token)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// ASCII without controls, `"`, `\\`, `~` and `/`.
    private static func isPlain(_ token: String) -> Bool {
        // NB: on the contiguous bytes; iterating `String.UTF8View` costs several times more per byte.
        var token = token
        return token.withUTF8 { bytes in
            for byte in bytes
            where byte < 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "/")
            {
                return false
            }
            return true
        }
    }
}
