import VMHost

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

    /// `--config`, then a flag for every setting (``VMHostConfiguration/settings``).
    static let flags: [Flag] =
        [
            Flag(
                name: "--config", value: "FILE", key: "",
                help: "JSON config file (default: config/vmhost.json if it exists)")
        ]
        + VMHostConfiguration.settings.map { setting in
            let shown = setting.defaultText.map { " (default \($0))" } ?? ""
            return Flag(name: setting.flag, value: setting.valueName, key: setting.key, help: setting.help + shown)
        }

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

    /// The `--help` text: each flag on a line of its own, its help indented below.
    static var usage: String {
        var text = """
            vmhost: server-held view models: commands over HTTP POST, state over Server-Sent Events.

            Usage: vmhost [options]

            Settings come from built-in defaults, then the config file (config/vmhost.json when present),
            then environment variables (one per setting: VMHOST_PORT, FLICKR_API_KEY, ...; see README.md),
            then these flags. Without upstream URLs, an embedded fake upstream serves deterministic data
            on a free loopback port.

            Options:

            """
        for flag in flags {
            text += "  \(flag.name) \(flag.value)\n        \(flag.help)\n"
        }
        text += "  -h, --help\n        show this help\n"
        return text
    }
}

/// A command line that cannot be run; the message says why.
struct UsageError: Error, Equatable {
    var message: String
}
