import JSON
import Testing
import VMHost

/// `config/vmhost.json` is the documented copy of every setting: it must list exactly the settings vmhost
/// reads, each with its built-in default, and load without error.
@Suite struct ConfigFileTests {
    static let path = String(#filePath.dropLast("Tests/VMHostTests/ConfigFileTests.swift".count)) + "config/vmhost.json"

    @Test func theConfigFileListsEverySettingAndLoads() throws {
        let bytes = try #require(readFile(Self.path), "cannot read \(Self.path)")
        let object = try #require(try JSONParser.parse(bytes).objectValue)
        #expect(Set(object.keys) == Set(VMHostConfiguration.settings.map(\.key)))
        #expect(object.keys.count == VMHostConfiguration.settings.count, "no key twice")
        let loaded = try VMHostConfiguration.load(file: bytes, environment: [:], flags: [:])
        #expect(loaded.port == VMHostConfiguration().port)
        #expect(loaded.redisURL == nil)
    }

    private func readFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return bytes
    }
}

#if canImport(Glibc)
import Glibc
#endif
