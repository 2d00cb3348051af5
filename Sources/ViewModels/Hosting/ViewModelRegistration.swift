import EventLoop
import JSON

/// One kind of view model every session hosts: the registration line of a screen.
///
/// ```swift
/// ViewModelRegistration(PhotoViewModel.self) { PhotoViewModel(service: upstreams.makeFlickrService()) }
/// ```
public struct ViewModelRegistration: Sendable {
    /// One command with its view model type erased.
    public struct Command: Sendable {
        /// What a decoded command does to the view model it is given.
        public typealias Action = @LoopActor (any HostedViewModel) throws(CommandRejection) -> CommandReply

        /// The path segment.
        public let name: String
        /// Decodes a body (an empty body is `{}`) into the action to run.
        public let decode: @Sendable (JSONObject) throws(CommandRejection) -> Action
    }

    /// The view model's name (``HostedViewModel/name``).
    public let name: String
    /// Its commands, in declaration order.
    public let commands: [Command]
    /// Builds the view model of a new session.
    public let make: @LoopActor @Sendable () -> any HostedViewModel

    /// Registers `type`, built by `make` for every new session.
    public init<Model: HostedViewModel>(_ type: Model.Type, make: @escaping @LoopActor @Sendable () -> Model) {
        name = Model.name
        commands = Model.commands.map { command in
            Command(name: command.name) { body throws(CommandRejection) -> Command.Action in
                let action = try command.decode(body)
                return { model throws(CommandRejection) -> CommandReply in
                    // NB: a session builds each slot from its own registration, so the model is always a Model.
                    guard let typed = model as? Model else {
                        throw .disabled(CommandDisabled("\(Model.name) received a command for another view model"))
                    }
                    return try action(typed)
                }
            }
        }
        self.make = make
    }

    /// The command named `name`, if the view model has one.
    public func command(_ name: String) -> Command? {
        commands.first { $0.name == name }
    }
}
