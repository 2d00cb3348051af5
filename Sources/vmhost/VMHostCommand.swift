import EventLoop
import Logging
import VMHost

#if canImport(Glibc)
import Glibc
#endif

/// `vmhost`: serves server-held view models over HTTP commands and Server-Sent Events.
@main
enum VMHostCommand {
    static func main() async {
        let options: CommandLineOptions
        do {
            options = try CommandLineOptions(parsing: Array(CommandLine.arguments.dropFirst()))
        } catch {
            fail("\(error.message)\nRun 'vmhost --help' for the options.", status: 64)
        }
        if options.wantsHelp {
            print(CommandLineOptions.usage, terminator: "")
            return
        }
        let settings: VMHostConfiguration
        do {
            let (file, fileName) = try readConfigFile(options.configFile)
            settings = try VMHostConfiguration.load(
                file: file, fileName: fileName, environment: currentEnvironment(), flags: options.settings
            )
        } catch {
            fail(error.description, status: 64)
        }
        raiseFileDescriptorLimit()
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "vmhost")
        // NB: returning from an async main does not end the process while the event loop's thread runs.
        exit(await serve(settings, logger: logger))
    }

    /// Prints `vmhost: message` to standard error and exits.
    private static func fail(_ message: String, status: Int32) -> Never {
        let line = Array("vmhost: \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        exit(status)
    }

    @LoopActor
    private static func serve(_ settings: VMHostConfiguration, logger: Logger) async -> Int32 {
        let application = VMHostApplication(configuration: settings, logger: logger)
        do {
            try application.start()
        } catch {
            logger.critical("cannot start", metadata: ["error": "\(error)"])
            return 1
        }
        // Wait for SIGINT or SIGTERM, then shut down gracefully.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let received = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let watchers = SignalWatchers()
            watchers.watch([SIGINT, SIGTERM]) { number in continuation.resume(returning: number) }
        }
        logger.info("shutting down", metadata: ["signal": "\(received)"])
        await application.shutdown()
        return 0
    }

    /// Thousands of open streams need thousands of descriptors: raise the soft limit to the hard one.
    private static func raiseFileDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    private static func readConfigFile(_ config: String?) throws(ConfigurationError) -> ([UInt8]?, String) {
        if let config {
            guard let bytes = readFile(config) else {
                throw ConfigurationError(description: "cannot read config file \(config)")
            }
            return (bytes, config)
        }
        let defaultPath = "config/vmhost.json"
        return (readFile(defaultPath), defaultPath)
    }

    private static func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }

    private static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}

/// Waits for the first of several signals, once.
@LoopActor
final class SignalWatchers {
    private var watchers: [SignalWatcher] = []

    func watch(_ signals: [Int32], then action: @escaping @LoopActor (Int32) -> Void) {
        for number in signals {
            // NB: the watcher retains this object through the closure until the first signal cancels them all.
            watchers.append(
                SignalWatcher(signal: number) { [self] number in
                    guard !watchers.isEmpty else { return }
                    for watcher in watchers { watcher.cancel() }
                    watchers.removeAll()
                    action(number)
                }
            )
        }
    }
}
