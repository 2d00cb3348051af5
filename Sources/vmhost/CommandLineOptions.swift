/// The flags of `vmhost`, parsed by hand.
///
/// NB: swift-argument-parser links FoundationEssentials, ~2 MB of resident pages in a process whose whole
/// baseline is ~18 MB (docs/performance.md, RSS with 5,000 streams). Eight `--name value` options do not
/// need it.
struct CommandLineOptions: Equatable {
    /// `--config FILE`.
    var configFile: String?
    /// Settings given as flags, by config-file key (the top layer of ``VMHostConfiguration``).
    var settings: [String: String] = [:]
    /// `--help` or `-h`.
    var wantsHelp = false

    /// A flag and the setting it sets.
    struct Flag {
        var name: String
        var value: String
        var key: String
        var help: String
    }

    static let flags: [Flag] = [
        Flag(
            name: "--config", value: "FILE", key: "",
            help: "JSON config file (default: config/vmhost.json if it exists)"),
        Flag(name: "--host", value: "ADDR", key: "host", help: "address to listen on (default 127.0.0.1)"),
        Flag(name: "--port", value: "N", key: "port", help: "port to listen on (default 8080; 0 picks a free port)"),
        Flag(
            name: "--flickr-url", value: "URL", key: "flickrUrl",
            help: "Flickr REST endpoint (the URL that ?method=... is appended to)"
        ),
        Flag(
            name: "--flickr-api-key", value: "KEY", key: "flickrApiKey",
            help: "Flickr API key (also FLICKR_API_KEY); never logged"
        ),
        Flag(
            name: "--products-url", value: "URL", key: "productsUrl",
            help: "product API base that /products?... is appended to"
        ),
        Flag(
            name: "--products-format", value: "FORMAT", key: "productsFormat",
            help: "product API dialect: envelope or dummyjson"
        ),
        Flag(
            name: "--redis-url", value: "URL", key: "redisUrl",
            help: "Redis journal (redis://host:port/db): sessions survive restarts and move between nodes"
        ),
        Flag(
            name: "--node-id", value: "ID", key: "nodeId", help: "this node's id in X-VMHost-Node (default host:port)"),
        Flag(
            name: "--log-level", value: "LEVEL", key: "logLevel",
            help: "trace, debug, info, notice, warning, error or critical"
        ),
        Flag(
            name: "--auth-hs256-secret-file", value: "FILE", key: "authHs256SecretFile",
            help: "turn authentication on: JWTs signed with HS256 by this secret (at least 32 bytes)"
        ),
        Flag(
            name: "--auth-jwks-file", value: "FILE", key: "authJwksFile",
            help: "turn authentication on: JWTs signed by a key of this JWKS (RS256, ES256, EdDSA)"
        ),
        Flag(name: "--auth-issuer", value: "ISS", key: "authIssuer", help: "the iss every token must carry"),
        Flag(name: "--auth-audience", value: "AUD", key: "authAudience", help: "the aud every token must carry"),
        Flag(
            name: "--allowed-origins", value: "LIST", key: "allowedOrigins",
            help: "origins besides the server's own whose pages may POST (comma-separated)"
        ),
        Flag(
            name: "--metrics-port", value: "N", key: "metricsPort",
            help: "serve /metrics on this port only (the public port answers 404 for it)"
        ),
    ]

    /// Parses the arguments after the program name: `--name value` or `--name=value`, `-h`/`--help`.
    /// - Throws: ``UsageError`` for an unknown flag, a missing value or a stray argument.
    init(parsing arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" {
                wantsHelp = true
                continue
            }
            let name: String
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            guard let flag = Self.flags.first(where: { $0.name == name }) else {
                throw UsageError(
                    message: argument.hasPrefix("-") ? "unknown option '\(name)'" : "unexpected argument '\(argument)'")
            }
            if value == nil { value = remaining.popFirst() }
            guard let value else { throw UsageError(message: "missing value for '\(name)'") }
            if flag.key.isEmpty {
                configFile = value
            } else {
                settings[flag.key] = value
            }
        }
    }

    /// The `--help` text.
    static var usage: String {
        let width = flags.map { $0.name.count + $0.value.count + 1 }.max() ?? 0
        var text = """
            vmhost: server-held view models: commands over HTTP POST, state over Server-Sent Events.

            Usage: vmhost [options]

            Settings come from built-in defaults, then the config file (config/vmhost.json when present),
            then environment variables (VMHOST_HOST, VMHOST_PORT, VMHOST_FLICKR_URL, FLICKR_API_KEY,
            VMHOST_PRODUCTS_URL, VMHOST_PRODUCTS_FORMAT, ...; see README.md), then these flags. Without
            upstream URLs, an embedded fake upstream serves deterministic data on a free loopback port.

            Options:

            """
        for flag in flags {
            let left = "\(flag.name) \(flag.value)"
            text += "  \(left)\(String(repeating: " ", count: width - left.count))  \(flag.help)\n"
        }
        text += "  -h, --help\(String(repeating: " ", count: max(0, width - 10)))  show this help\n"
        return text
    }
}

/// A command line that cannot be run; the message says why.
struct UsageError: Error, Equatable {
    var message: String
}
