import Foundation
import OpenAPIRuntime

/// Decodes a state from the JSON the stream holds, with the same rules as the generated client's own answers: dates
/// (`createdAt` of a photo comment) are RFC 3339 strings.
enum StateDecoder {
    /// A decoder for one subscriber (a `JSONDecoder` is not free to make for every version).
    static func make() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            do {
                return try ISO8601DateTranscoder.iso8601.decode(text)
            } catch {
                return try ISO8601DateTranscoder.iso8601WithFractionalSeconds.decode(text)
            }
        }
        return decoder
    }
}
