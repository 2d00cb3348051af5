import EventLoop
import JSON

/// What the host answers once a command has run.
public enum CommandReply: Sendable {
    /// `200` with the new state (commands that finish at once: `text`, `cancel`, `close`).
    case state
    /// `202 {"version": N}` at once; with `Prefer: wait=N`, `200` with the state once `finished` returns
    /// (it must return early when its task is cancelled).
    case accepted(finished: @LoopActor @Sendable () async -> Void)
}

/// One command of a view model: the last segment of its path, how its body is decoded, and what it does.
///
/// Decoding is pure and separate from running, so the fuzz target decodes every command of every view model
/// with exactly the server's functions, and a command refused by decoding never reaches the view model.
public struct ViewModelCommand<Model: AnyObject>: Sendable {
    /// What a decoded command does to its view model.
    public typealias Action = @LoopActor (Model) throws(CommandRejection) -> CommandReply

    /// The path segment: `POST /v1/sessions/{id}/{viewModel}/{name}`.
    public let name: String
    /// Decodes the request body (an empty body is `{}`) into the action to run.
    public let decode: @Sendable (JSONObject) throws(CommandRejection) -> Action

    /// A command with a body.
    public init(_ name: String, decode: @escaping @Sendable (JSONObject) throws(CommandRejection) -> Action) {
        self.name = name
        self.decode = decode
    }

    /// A command whose body is ignored (any JSON object, or none).
    public init(_ name: String, run: @escaping Action) {
        self.name = name
        self.decode = { _ throws(CommandRejection) in run }
    }
}
