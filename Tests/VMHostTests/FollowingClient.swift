import JSON
import JSONPatch
import Synchronization
import VMHostTesting

/// A client that behaves like a browser's EventSource on one view model's stream: it rebuilds the state
/// from the events, and when the stream ends or breaks it waits the `retry:` delay and reconnects with
/// `Last-Event-ID`. It records every node that served it and every break of the contract it sees (a version
/// repeated or going back, a patch that does not apply, an answer other than 200, or a 503 to retry).
final class FollowingClient: Sendable {
    let sessionID: String
    let port: Int
    let viewModel: String

    struct Record {
        var state: JSONValue?
        var lastID: Int?
        /// `X-VMHost-Node` of the current (or last) connection.
        var node: String?
        /// Successful connections so far.
        var connections = 0
        /// When the current connection opened.
        var connectedAt = ContinuousClock.now
        /// Contract breaks seen.
        var problems: [String] = []
        /// Answers `503` (a node draining or a session moving): a reconnect, not an error.
        var retriedAnswers = 0
        var stopped = false
        var stream: TestEventStream?
    }

    private let record = Mutex(Record())

    init(sessionID: String, port: Int, viewModel: String = "search") {
        self.sessionID = sessionID
        self.port = port
        self.viewModel = viewModel
    }

    /// What the client has seen so far.
    var snapshot: Record { record.withLock { $0 } }

    /// Ends the client (its connection is closed).
    func stop() {
        let stream = record.withLock {
            $0.stopped = true
            return $0.stream
        }
        // NB: shutdown, not close: the reading task closes the stream itself once its read returns.
        stream?.shutdown()
    }

    /// Runs until ``stop()``: connect, follow, wait `retry`, reconnect.
    func run() async {
        var retry = 3000
        while !record.withLock({ $0.stopped }) {
            let lastID = record.withLock { $0.lastID }
            let headers = lastID.map { [("Last-Event-ID", String($0))] } ?? []
            if let stream = try? await TestEventStream(
                port: port, path: "/v1/sessions/\(sessionID)/\(viewModel)/events", headers: headers, timeoutSeconds: 60
            ) {
                let accepted = record.withLock { record -> Bool in
                    guard !record.stopped else { return false }
                    if stream.status == 200 {
                        record.stream = stream
                        record.node = stream.header("X-VMHost-Node")
                        record.connections += 1
                        record.connectedAt = ContinuousClock.now
                    } else if stream.status == 503, stream.header("Retry-After") != nil {
                        record.retriedAnswers += 1
                    } else {
                        record.problems.append("stream answered \(stream.status)")
                    }
                    return stream.status == 200
                }
                if accepted {
                    while let event = try? await stream.next() {
                        if let value = event.retry { retry = value }
                        record.withLock { apply(event, to: &$0) }
                    }
                }
                stream.close()
            }
            if record.withLock({ $0.stopped }) { break }
            try? await Task.sleep(for: .milliseconds(retry))
        }
    }

    private func apply(_ event: TestServerSentEvent, to record: inout Record) {
        guard let data = event.json else {
            record.problems.append("unparsable \(event.event)")
            return
        }
        switch event.event {
        case "snapshot":
            let version = data["version"]?.intValue ?? 0
            if let last = record.lastID, version < last { record.problems.append("snapshot \(version) after \(last)") }
            record.state = data
            record.lastID = version
        case "patch":
            guard let id = event.id.flatMap({ Int($0) }), let state = record.state else {
                record.problems.append("patch without id or state")
                return
            }
            if let last = record.lastID, id <= last { record.problems.append("patch \(id) after \(last): repeated") }
            do {
                let next = try JSONPatch.apply(JSONPatch.parse(data), to: state)
                if next["version"]?.intValue != id { record.problems.append("patch \(id) gave another version") }
                record.state = next
                record.lastID = id
            } catch {
                record.problems.append("patch \(id) does not apply: \(error)")
            }
        default:
            record.problems.append("unexpected event \(event.event)")
        }
    }
}
