import EventLoop
import Testing

@testable import ViewModels

/// Drives a view model and checks every change it reports, the way the Composable Architecture's `TestStore`
/// does: after a command or an upstream answer, each change the view model reported must be asserted, in order,
/// as a mutation of the state asserted before it; ``finish(sourceLocation:)`` fails on a change nobody asserted
/// or on work still running.
@LoopActor
final class ViewModelTestStore<Model: HostedViewModel> {
    /// The view model under test.
    let model: Model
    /// The state as last asserted.
    private(set) var state: Model.State
    private var reported: [Model.State] = []

    /// Starts recording `model`'s changes from its current state.
    init(_ model: Model) {
        self.model = model
        state = model.state
        model.onChange = { [unowned self] in reported.append($0) }
    }

    /// Runs `command` (a command or an answer of a fake upstream), then expects the next reported change to be the
    /// state asserted last with `update` applied.
    func send(
        _ command: () async throws -> Void, _ update: (inout Model.State) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async rethrows {
        try await command()
        await settle()
        receive(update, sourceLocation: sourceLocation)
    }

    /// Expects the next reported change to be the state asserted last with `update` applied.
    func receive(_ update: (inout Model.State) -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        var expected = state
        update(&expected)
        guard !reported.isEmpty else {
            Issue.record("expected a change, but the view model reported none", sourceLocation: sourceLocation)
            return
        }
        let next = reported.removeFirst()
        #expect(next == expected, "the reported change differs from the expected one", sourceLocation: sourceLocation)
        #expect(model.state == next || !reported.isEmpty, sourceLocation: sourceLocation)
        state = next
    }

    /// Runs `command` and expects it to change nothing (a refused or idempotent command).
    func sendWithoutChange(
        _ command: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async rethrows {
        try await command()
        await settle()
        #expect(reported.isEmpty, "unexpected change: \(reported)", sourceLocation: sourceLocation)
    }

    /// Ends the test: every reported change was asserted and no work is left running.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        await settle()
        #expect(reported.isEmpty, "changes nobody asserted: \(reported)", sourceLocation: sourceLocation)
        #expect(!model.isBusy, "work is still running", sourceLocation: sourceLocation)
    }
}
