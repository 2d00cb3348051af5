import Logging
import Synchronization

/// Every line an application logs, with its metadata, kept for a test to search (what must never appear in logs).
final class CapturedLog: Sendable {
    private let lines = Mutex<[String]>([])

    /// Every line so far, `message key=value…`.
    var text: String { lines.withLock { $0.joined(separator: "\n") } }

    /// A logger at `level` writing here.
    func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "vmhost-test") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            log.append(([event.level.rawValue, "\(event.message)"] + pairs).joined(separator: " "))
        }
    }
}
