import ArgumentParser
import EventLoop
import Logging
import VMHost

#if canImport(Glibc)
import Glibc
#endif

/// `vmhost`: serves server-held view models over HTTP commands and Server-Sent Events.
@main
struct VMHostCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vmhost",
        abstract: "Server-held view models: commands over HTTP POST, state over Server-Sent Events.",
        discussion: """
            Settings come from built-in defaults, then the config file (config/vmhost.json when present), \
            then environment variables (VMHOST_HOST, VMHOST_PORT, VMHOST_FLICKR_URL, FLICKR_API_KEY, \
            VMHOST_PRODUCTS_URL, VMHOST_PRODUCTS_FORMAT, ...), then these flags. Without upstream URLs, an \
            embedded fake upstream serves deterministic data on a free loopback port.
            """
    )

    @Option(name: .long, help: "JSON config file (default: config/vmhost.json if it exists).")
    var config: String?

    @Option(name: .long, help: "Address to listen on (default 127.0.0.1).")
    var host: String?

    @Option(name: .long, help: "Port to listen on (default 8080; 0 picks a free port).")
    var port: Int?

    @Option(name: .customLong("flickr-url"), help: "Flickr REST endpoint (the URL that ?method=... is appended to).")
    var flickrURL: String?

    @Option(name: .customLong("flickr-api-key"), help: "Flickr API key (also FLICKR_API_KEY); never logged.")
    var flickrAPIKey: String?

    @Option(name: .customLong("products-url"), help: "Product API base that /products?... is appended to.")
    var productsURL: String?

    @Option(name: .customLong("products-format"), help: "Product API dialect: envelope or dummyjson.")
    var productsFormat: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    func run() async throws {
        var flags: [String: String] = [:]
        flags["host"] = host
        flags["port"] = port.map(String.init)
        flags["flickrUrl"] = flickrURL
        flags["flickrApiKey"] = flickrAPIKey
        flags["productsUrl"] = productsURL
        flags["productsFormat"] = productsFormat
        flags["logLevel"] = logLevel

        let (file, fileName) = try readConfigFile()
        let settings: VMHostConfiguration
        do {
            settings = try VMHostConfiguration.load(
                file: file, fileName: fileName, environment: currentEnvironment(), flags: flags
            )
        } catch {
            throw ValidationError(error.description)
        }
        Self.raiseFileDescriptorLimit()
        let level = settings.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "vmhost")
        let exitCode = try await Self.serve(settings, logger: logger)
        if exitCode != 0 { throw ExitCode(exitCode) }
    }

    @LoopActor
    private static func serve(_ settings: VMHostConfiguration, logger: Logger) async throws -> Int32 {
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

    private func readConfigFile() throws -> ([UInt8]?, String) {
        if let config {
            guard let bytes = readFile(config) else { throw ValidationError("cannot read config file \(config)") }
            return (bytes, config)
        }
        let defaultPath = "config/vmhost.json"
        return (readFile(defaultPath), defaultPath)
    }

    private func readFile(_ path: String) -> [UInt8]? {
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

    private func currentEnvironment() -> [String: String] {
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
