import JSON
import JSONPatch
import Synchronization
import VMHostTesting

/// A client of one session's multiplexed stream, as a browser's EventSource with a JSON Patch library: it
/// applies snapshots and patches to its own copy of each view model, tracks `Last-Event-ID` and resumes with
/// it, and records every break of the contract it sees (a patch that does not apply, a version that goes back
/// or is reused for another state).
final class DurableSessionClient: Sendable {
    struct View {
        /// The client's state of each view model (`search`, `products`, `photo`).
        var states: [String: JSONValue] = [:]
        /// The id of the last event applied.
        var lastEventID: String?
        /// Every state seen, by view model and version, across every stream of the session.
        var seen: [String: [Int: JSONValue]] = [:]
        /// Contract breaks seen.
        var problems: [String] = []
        /// Whether the current stream has ended.
        var ended = true
        /// Events applied.
        var events = 0
    }

    let id: String
    private let view = Mutex(View())

    init(id: String) {
        self.id = id
    }

    /// The client's view now.
    var current: View { view.withLock { $0 } }

    /// Opens the multiplexed stream on `port` (with the last event id, if any) and follows it in the
    /// background until it ends.
    func follow(port: Int) async throws {
        let lastEventID = current.lastEventID
        let headers = lastEventID.map { [("Last-Event-ID", $0)] } ?? []
        let stream = try await TestEventStream(
            port: port, path: "/v1/sessions/\(id)/events", headers: headers, timeoutSeconds: 60)
        guard stream.status == 200 else {
            throw TestClientError("stream of \(id) answered \(stream.status)")
        }
        view.withLock { $0.ended = false }
        Task {
            while true {
                let event: TestServerSentEvent?
                do { event = try await stream.next() } catch { event = nil }
                guard let event else { break }
                self.apply(event)
            }
            stream.close()
            self.view.withLock { $0.ended = true }
        }
    }

    private func apply(_ event: TestServerSentEvent) {
        view.withLock { view in
            view.events += 1
            let parts = event.event.split(separator: ".")
            guard parts.count == 2, let data = event.json else {
                view.problems.append("\(id): unreadable event \(event.event) \(event.data)")
                return
            }
            let name = String(parts[0])
            var state: JSONValue
            if parts[1] == "snapshot" {
                state = data
            } else {
                guard let previous = view.states[name] else {
                    view.problems.append("\(id): \(name) patch before any snapshot")
                    return
                }
                do {
                    state = try JSONPatch.apply(try JSONPatch.parse(data), to: previous)
                } catch {
                    view.problems.append("\(id): \(name) patch \(event.id ?? "-") does not apply: \(error)")
                    return
                }
            }
            guard let version = state["version"]?.intValue else {
                view.problems.append("\(id): \(name) state without a version")
                return
            }
            if let previous = view.states[name]?["version"]?.intValue, version < previous {
                view.problems.append("\(id): \(name) went back from version \(previous) to \(version)")
            }
            if let earlier = view.seen[name]?[version], earlier != state {
                view.problems.append("\(id): \(name) version \(version) reused for another state")
            }
            if let eventID = event.id {
                if !eventID.split(separator: ",").contains(Substring("\(name):\(version)")) {
                    view.problems.append("\(id): event id \(eventID) does not name \(name):\(version)")
                }
                view.lastEventID = eventID
            }
            view.seen[name, default: [:]][version] = state
            view.states[name] = state
        }
    }

    /// Whether the client's state of every view model in `resource` (a `GET /v1/sessions/{id}`) equals it.
    func matches(_ resource: JSONValue?) -> Bool {
        guard let resource else { return false }
        let states = current.states
        return !states.isEmpty && states.allSatisfy { resource[$0.key] == $0.value }
    }
}

extension JSONValue {
    /// Whether anything in the state is loading (a Loadable with status `loading`, or a busy flag).
    var isLoadingAnything: Bool {
        switch self {
        case .object(let object):
            for (key, value) in object {
                if key == "status", value == "loading" { return true }
                if ["isSearching", "isRefreshing", "isLoadingMore"].contains(key), value == true { return true }
                if value.isLoadingAnything { return true }
            }
            return false
        case .array(let elements):
            return elements.contains { $0.isLoadingAnything }
        default:
            return false
        }
    }
}
