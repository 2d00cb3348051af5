import JSON
import Testing
import VMHost
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// One table (``VMHostConfiguration/settings``) is the source of every setting: `config/vmhost.json` and the
/// README's settings table must be its renderings, byte for byte, and every setting must load from each of the
/// three layers. `VMHOST_UPDATE_GENERATED=1` rewrites the two files instead of failing.
@Suite struct ConfigFileTests {
    static let root = String(#filePath.dropLast("Tests/VMHostTests/ConfigFileTests.swift".count))
    static let beginMarker = "<!-- settings: made from VMHostConfiguration.settings; checked by ConfigFileTests -->\n"
    static let endMarker = "<!-- end of settings -->\n"

    @Test func theConfigFileIsTheTablesDefaultsAndLoads() throws {
        let path = Self.root + "config/vmhost.json"
        let bytes = try #require(readFile(path), "cannot read \(path)")
        let expected = VMHostConfiguration.defaultConfigFile
        if String(decoding: bytes, as: UTF8.self) != expected, updating {
            try writeFile(path, expected)
            return
        }
        #expect(String(decoding: bytes, as: UTF8.self) == expected, "run VMHOST_UPDATE_GENERATED=1 to rewrite \(path)")
        let object = try #require(try JSONParser.parse(bytes).objectValue)
        #expect(object.keys.count == VMHostConfiguration.settings.count, "no key twice")
        #expect(try VMHostConfiguration.load(file: bytes, environment: [:], flags: [:]) == VMHostConfiguration())
    }

    @Test func theReadmesTableIsTheTables() throws {
        let path = Self.root + "README.md"
        let readme = String(decoding: try #require(readFile(path), "cannot read \(path)"), as: UTF8.self)
        let begin = try #require(readme.range(of: Self.beginMarker), "no settings block in README.md")
        let end = try #require(readme.range(of: Self.endMarker), "no end of the settings block in README.md")
        let current = String(readme[begin.upperBound..<end.lowerBound])
        let expected = VMHostConfiguration.settingsMarkdown
        if current != expected, updating {
            try writeFile(path, String(readme[..<begin.upperBound]) + expected + String(readme[end.lowerBound...]))
            return
        }
        #expect(current == expected, "run VMHOST_UPDATE_GENERATED=1 to rewrite README.md's settings table")
    }

    /// Each setting's default, given back as text through each layer, loads to the defaults again; and each
    /// key, variable and flag is unique.
    @Test func everySettingLoadsFromEachLayer() throws {
        let settings = VMHostConfiguration.settings
        #expect(Set(settings.map(\.key)).count == settings.count)
        #expect(Set(settings.map(\.environment)).count == settings.count)
        #expect(Set(settings.map(\.flag)).count == settings.count)
        for setting in settings {
            guard let text = setting.defaultText else { continue }
            let file = Array("{\"\(setting.key)\": \"\(text)\"}".utf8)
            #expect(try VMHostConfiguration.load(file: file, environment: [:], flags: [:]) == VMHostConfiguration())
            let environment = [setting.environment: text]
            #expect(try VMHostConfiguration.load(file: nil, environment: environment, flags: [:]) == .init())
            #expect(try VMHostConfiguration.load(file: nil, environment: [:], flags: [setting.key: text]) == .init())
        }
    }

    @Test func valuesAreCheckedAndTheLayersTakePrecedenceInOrder() throws {
        #expect(throws: ConfigurationError(description: "flag for port: 'port' must be an integer in 0...65535")) {
            try VMHostConfiguration.load(file: nil, environment: [:], flags: ["port": "70000"])
        }
        #expect(
            throws: ConfigurationError(
                description: "environment VMHOST_PRODUCTS_FORMAT: 'productsFormat' must be envelope or dummyjson")
        ) {
            try VMHostConfiguration.load(file: nil, environment: ["VMHOST_PRODUCTS_FORMAT": "xml"], flags: [:])
        }
        #expect(throws: ConfigurationError(description: "config file: unknown setting 'colour'")) {
            try VMHostConfiguration.load(file: Array("{\"colour\": 1}".utf8), environment: [:], flags: [:])
        }
        #expect(throws: ConfigurationError.self) {
            try VMHostConfiguration.load(file: nil, environment: [:], flags: ["allowedOrigins": "https://a.example/x"])
        }
        let loaded = try VMHostConfiguration.load(
            file: Array("{\"port\": 1, \"maxSessions\": 7, \"sessionIdleTimeoutSeconds\": 60}".utf8),
            environment: [
                "VMHOST_PORT": "2", "VMHOST_MAX_SESSIONS": "8",
                "VMHOST_ALLOWED_ORIGINS": "https://a.example, http://b.example:81",
            ],
            flags: ["port": "3"]
        )
        var expected = VMHostConfiguration()
        expected.port = 3
        expected.maxSessions = 8
        expected.sessionIdleTimeout = .seconds(60)
        expected.allowedOrigins = ["https://a.example", "http://b.example:81"]
        #expect(loaded == expected)
        #expect(
            VMHostConfiguration.settings.first { $0.key == "sessionIdleTimeoutSeconds" }?.flag
                == "--session-idle-timeout-seconds")
        #expect(
            VMHostConfiguration.settings.first { $0.key == "authHs256SecretFile" }?.flag
                == "--auth-hs256-secret-file")
    }

    private var updating: Bool { getenv("VMHOST_UPDATE_GENERATED").map { String(cString: $0) } == "1" }

    private func writeFile(_ path: String, _ text: String) throws {
        guard let file = fopen(path, "wb") else { throw ConfigurationError(description: "cannot write \(path)") }
        defer { fclose(file) }
        let bytes = Array(text.utf8)
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else {
            throw ConfigurationError(description: "cannot write \(path)")
        }
    }
}
