/// Why ``JSONParser`` rejected its input, and the byte offset of the problem.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset in the input where the problem was found.
    public var offset: Int
    /// What is wrong, e.g. `unexpected character 'x'`.
    public var message: String

    /// Creates an error.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The message with its position, e.g. `unexpected character 'x' at offset 12`.
    public var description: String { "\(message) at offset \(offset)" }
}
