/// A command refused because it is disabled in the current state (`409 command_disabled`).
public struct CommandDisabled: Error, Sendable, Equatable {
    /// Why the command is disabled, for the client.
    public var reason: String

    /// Creates the error.
    public init(_ reason: String) {
        self.reason = reason
    }
}
