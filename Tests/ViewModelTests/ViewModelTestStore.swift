import EventLoop
import JSON
import Testing
import VMHostTesting

@testable import ViewModels

/// A fake upstream service that the test answers by hand: a call it has not answered is work still running.
@LoopActor
protocol HandAnsweredService: AnyObject {
    /// The calls made and not yet answered or cancelled.
    var pendingCallCount: Int { get }
}

/// Drives a view model and checks every change it reports, the way the Composable Architecture's `TestStore`
/// does: after a command, an upstream answer or a move of the clock, each change the view model reported must be
/// asserted, in order, as a mutation of the state asserted before it, before anything else happens;
/// ``finish(sourceLocation:)`` fails on a change nobody asserted or on work still running (a load, an upstream call
/// not answered, a sleeper on the test clock).
@LoopActor
final class ViewModelTestStore<Model: HostedViewModel> {
    /// The view model under test.
    let model: Model
    /// The state as last asserted.
    private(set) var state: Model.State
    private let clock: TestClock?
    private let service: (any HandAnsweredService)?
    private var reported: [Model.State] = []
    /// The extras and their revision after the last step (``HostedViewModel/extrasRevision``).
    private var extras: (text: [UInt8], revision: Int?)

    /// Starts recording `model`'s changes from its current state.
    /// - Parameters:
    ///   - clock: the model's clock, moved by ``advance(by:_:sourceLocation:)``; its sleepers count as work running.
    ///   - service: the model's fake upstream; its unanswered calls count as work running.
    init(_ model: Model, clock: TestClock? = nil, service: (any HandAnsweredService)? = nil) {
        self.model = model
        self.clock = clock
        self.service = service
        state = model.state
        extras = Self.extras(of: model)
        model.onChange = { [unowned self] in reported.append($0) }
    }

    private static func extras(of model: Model) -> (text: [UInt8], revision: Int?) {
        var json = JSONTextWriter()
        model.writeExtras(to: &json)
        return (json.take(), model.extrasRevision)
    }

    /// Fails when the extras changed since the last step while their revision did not: the journal, which writes
    /// them only when the revision moved, would keep stale ones. Every step of every test checks it.
    private func expectExtrasRevised(sourceLocation: SourceLocation) {
        let now = Self.extras(of: model)
        if let revision = now.revision, revision == extras.revision {
            let (before, after) = (
                String(decoding: extras.text, as: UTF8.self), String(decoding: now.text, as: UTF8.self)
            )
            #expect(after == before, "the extras changed without a new revision", sourceLocation: sourceLocation)
        }
        extras = now
    }

    /// Runs `command` (a command or an answer of a fake upstream) and lets the loop run what it started, then
    /// expects the next reported change to be the state asserted last with `update` applied. When `update` leaves
    /// that state as it was, the command must report no change at all.
    func send(
        _ command: () async throws -> Void, _ update: (inout Model.State) -> Void,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async rethrows {
        expectNothingUnasserted(before: "the command", sourceLocation: sourceLocation)
        try await command()
        await settle()
        expectExtrasRevised(sourceLocation: sourceLocation)
        receive(update, sourceLocation: sourceLocation)
    }

    /// Runs `command` and expects it to change nothing (a refused or idempotent command).
    func sendWithoutChange(
        _ command: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async rethrows {
        try await send(command, { _ in }, sourceLocation: sourceLocation)
    }

    /// Moves the test clock by `duration` and lets the loop run what woke, then expects what `send` does: the
    /// next reported change is the asserted state with `update` applied, or no change when `update` changes
    /// nothing (the default).
    func advance(
        by duration: Duration, _ update: (inout Model.State) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        guard let clock else {
            Issue.record("the store was made without a clock", sourceLocation: sourceLocation)
            return
        }
        await send({ clock.advance(by: duration) }, update, sourceLocation: sourceLocation)
    }

    /// Expects the next reported change (one that a command made after another, or work it started) to be the
    /// state asserted last with `update` applied; no change is expected when `update` changes nothing.
    func receive(_ update: (inout Model.State) -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        var expected = state
        update(&expected)
        guard expected != state else {
            #expect(reported.isEmpty, "unexpected change: \(reported)", sourceLocation: sourceLocation)
            reported.removeAll()
            return
        }
        guard !reported.isEmpty else {
            Issue.record("expected a change, but the view model reported none", sourceLocation: sourceLocation)
            return
        }
        let next = reported.removeFirst()
        #expect(next == expected, "the reported change differs from the expected one", sourceLocation: sourceLocation)
        #expect(model.state == next || !reported.isEmpty, sourceLocation: sourceLocation)
        state = next
    }

    /// Ends the test: every reported change was asserted and no work is left running.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        await settle()
        expectExtrasRevised(sourceLocation: sourceLocation)
        #expect(reported.isEmpty, "changes nobody asserted: \(reported)", sourceLocation: sourceLocation)
        #expect(!model.isBusy, "work is still running", sourceLocation: sourceLocation)
        if let service {
            #expect(service.pendingCallCount == 0, "upstream calls are still waiting", sourceLocation: sourceLocation)
        }
        if let clock {
            #expect(clock.sleeperCount == 0, "tasks still sleep on the clock", sourceLocation: sourceLocation)
        }
    }

    /// Fails on changes reported since the last assertion: each must be asserted before the next step.
    private func expectNothingUnasserted(before step: String, sourceLocation: SourceLocation) {
        #expect(reported.isEmpty, "changes nobody asserted before \(step): \(reported)", sourceLocation: sourceLocation)
        // NB: dropped once reported, so that one missed assertion fails once, not at every later step.
        reported.removeAll()
    }
}
