import JSON

/// One setting of ``VMHostConfiguration``, described once: its config-file key, environment variable, command-line
/// flag, help text, how a text value is checked and applied, and how the value reads back (for the shipped
/// config file and the README's table).
///
/// Everything else is derived from ``VMHostConfiguration/settings``: loading (file, environment, flags), every
/// `vmhost` flag and its `--help` line, `config/vmhost.json` and the README's settings table, the last two checked
/// by `ConfigFileTests`.
public struct Setting: Sendable {
    /// The config-file key (`sessionIdleTimeoutSeconds`).
    public let key: String
    /// The environment variable (`VMHOST_SESSION_IDLE_TIMEOUT`).
    public let environment: String
    /// What the flag's value is, for `--help` (`N`, `URL`, `FILE`).
    public let valueName: String
    /// One line for `--help` and the README.
    public let help: String
    /// Checks `value` and sets it; the error says what the value must be (without the source or the key).
    let apply: @Sendable (inout VMHostConfiguration, _ value: String) throws(SettingValueError) -> Void
    /// The value as the config file writes it (`null` when unset).
    public let value: @Sendable (VMHostConfiguration) -> JSONValue

    /// The built-in default as text (`1800`, `envelope`); nil when unset by default.
    public var defaultText: String? {
        let value = value(VMHostConfiguration())
        return value.isNull ? nil : value.stringValue ?? value.serializedString
    }

    /// The command-line flag: the key in kebab case (`--session-idle-timeout-seconds`).
    public var flag: String {
        var flag = "--"
        for character in key {
            if character.isUppercase {
                flag += "-" + character.lowercased()
            } else {
                flag.append(character)
            }
        }
        return flag
    }
}

/// Why a setting's value was refused: what it must be (`must be an integer in 1...100`).
struct SettingValueError: Error {
    var requirement: String
}

extension Setting {
    typealias Path<Value> = any WritableKeyPath<VMHostConfiguration, Value> & Sendable

    /// Any text.
    static func text(
        _ key: String, _ environment: String, _ valueName: String, _ help: String, _ path: Path<String>
    ) -> Setting {
        Setting(
            key: key, environment: environment, valueName: valueName, help: help,
            apply: { configuration, value in configuration[keyPath: path] = value },
            value: { .string($0[keyPath: path]) }
        )
    }

    /// Non-empty text, or unset.
    static func optionalText(
        _ key: String, _ environment: String, _ valueName: String, _ help: String, _ path: Path<String?>,
        check: @escaping @Sendable (String) -> String? = { $0.isEmpty ? "must not be empty" : nil }
    ) -> Setting {
        Setting(
            key: key, environment: environment, valueName: valueName, help: help,
            apply: { configuration, value throws(SettingValueError) in
                if let requirement = check(value) { throw SettingValueError(requirement: requirement) }
                configuration[keyPath: path] = value
            },
            value: { $0[keyPath: path].map(JSONValue.string) ?? .null }
        )
    }

    /// An `http://` or `https://` URL, or unset.
    static func url(_ key: String, _ environment: String, _ help: String, _ path: Path<String?>) -> Setting {
        optionalText(key, environment, "URL", help, path) { value in
            value.hasPrefix("http://") || value.hasPrefix("https://") ? nil : "must be an http(s) URL"
        }
    }

    /// An integer in `range`.
    static func integer(
        _ key: String, _ environment: String, _ help: String, _ path: Path<Int>, _ range: ClosedRange<Int>
    ) -> Setting {
        Setting(
            key: key, environment: environment, valueName: "N", help: help,
            apply: { configuration, value throws(SettingValueError) in
                configuration[keyPath: path] = try integer(value, in: range)
            },
            value: { .int($0[keyPath: path]) }
        )
    }

    /// An integer in `range`, or unset.
    static func optionalInteger(
        _ key: String, _ environment: String, _ help: String, _ path: Path<Int?>, _ range: ClosedRange<Int>
    ) -> Setting {
        Setting(
            key: key, environment: environment, valueName: "N", help: help,
            apply: { configuration, value throws(SettingValueError) in
                configuration[keyPath: path] = try integer(value, in: range)
            },
            value: { $0[keyPath: path].map(JSONValue.int) ?? .null }
        )
    }

    /// A duration given as a whole number of `unit`s (the key and the variable name the unit).
    static func duration(
        _ key: String, _ environment: String, _ help: String, _ path: Path<Duration>, _ unit: Duration,
        _ range: ClosedRange<Int>
    ) -> Setting {
        Setting(
            key: key, environment: environment, valueName: "N", help: help,
            apply: { configuration, value throws(SettingValueError) in
                configuration[keyPath: path] = unit * (try integer(value, in: range))
            },
            value: { .int(Int($0[keyPath: path] / unit)) }
        )
    }

    /// One of an enumeration's raw values.
    static func choice<Value: RawRepresentable & CaseIterable & Sendable>(
        _ key: String, _ environment: String, _ help: String, _ path: Path<Value>
    ) -> Setting where Value.RawValue == String {
        let names = Value.allCases.map(\.rawValue)
        let requirement = "must be " + names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        return Setting(
            key: key, environment: environment, valueName: names.joined(separator: "|"), help: help,
            apply: { configuration, value throws(SettingValueError) in
                guard let choice = Value(rawValue: value) else { throw SettingValueError(requirement: requirement) }
                configuration[keyPath: path] = choice
            },
            value: { .string($0[keyPath: path].rawValue) }
        )
    }

    private static func integer(_ value: String, in range: ClosedRange<Int>) throws(SettingValueError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw SettingValueError(requirement: "must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }
}
