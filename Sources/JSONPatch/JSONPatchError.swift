/// Why a JSON Pointer or JSON Patch could not be parsed or applied.
public struct JSONPatchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, e.g. `operation 2 (remove): no value at "/a/b"`.
    public var message: String

    /// Creates an error with a message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
