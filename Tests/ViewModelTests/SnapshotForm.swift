import EventLoop
import JSON

@testable import ViewModels

/// The two forms in which the journal keeps what a view model continues from: its snapshot's text (records of
/// earlier releases), and its state's JSON with its extras (this release's, the state rebuilt from the log). A
/// restore from either must continue the same view model.
enum SnapshotForm: CaseIterable, Sendable {
    case snapshotText
    case stateAndExtras

    struct NotAnObject: Error {}

    /// `viewModel`'s snapshot in this form as the journal reads it back from Redis: its text parsed, or rebuilt
    /// from the state's JSON (with `version`, as the journal's state has it) and the extras' text parsed.
    @LoopActor
    func snapshot<Model: HostedViewModel>(of viewModel: Model) throws -> JSONValue {
        switch self {
        case .snapshotText:
            return try JSONParser.parse(viewModel.snapshotText)
        case .stateAndExtras:
            guard var state = viewModel.stateJSON.objectValue else { throw NotAnObject() }
            state["version"] = .int(7)
            return try Model.snapshot(state: .object(state), extras: JSONParser.parse(viewModel.extrasText))
        }
    }
}
