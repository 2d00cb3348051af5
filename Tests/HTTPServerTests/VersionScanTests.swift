import CLibeventOverrides
import CLibeventShims
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// vmhost's own `__isoc99_sscanf` (`CLibeventShims/http_version_scan.c`), which evhttp reads every request's
/// version with: its results must be glibc's, for that format and any other.
@Suite("sscanf")
struct VersionScanTests {
    /// glibc's `__isoc99_sscanf`, the next definition after this process's.
    static func glibcs() throws -> UnsafeMutableRawPointer {
        try #require(dlsym(UnsafeMutableRawPointer(bitPattern: -1), "__isoc99_sscanf"))
    }

    /// What `scan` makes of `input` with `format`: the count and the three targets (which start as -7, -7, '?').
    static func scan(_ scan: UnsafeMutableRawPointer, _ input: String, _ format: String) -> [Int32] {
        var first: Int32 = -7
        var second: Int32 = -7
        var third = CChar(UInt8(ascii: "?"))
        let count = vmh_scan_three(scan, input, format, &first, &second, &third)
        return [count, first, second, Int32(third)]
    }

    static let versions = [
        "HTTP/1.1", "HTTP/1.0", "HTTP/1.2", "HTTP/2.0", "HTTP/0.9", "HTTP/1.1x", "HTTP/1.1 ", "HTTP/ 1.1", "HTTP/01.1",
        "HTTP/+1.1", "HTTP/-1.1", "HTTP/1.", "HTTP/1", "HTTP/", "http/1.1", "HTTP/1.10", "HTTP/99999999999.1", "",
        "HTTP/1.1\u{80}", "HTTPS/1.1", "HTTP/1,1",
    ]

    @Test func theProcessCallsThisDefinition() throws {
        #expect(dlsym(nil, "__isoc99_sscanf") == vmh_sscanf_definition())
        #expect(try Self.glibcs() != vmh_sscanf_definition())
    }

    @Test(arguments: ["HTTP/%d.%d%c", "%d.%d%c", "HTTP/%d.%d"])
    func resultsAreGlibcsForEveryInput(format: String) throws {
        let ours = try #require(vmh_sscanf_definition())
        let glibc = try Self.glibcs()
        var inputs = Self.versions
        // Random strings over the letters versions are made of.
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("HTP/01.29 +-x")
        for _ in 0..<300 {
            let length = Int.random(in: 0...10, using: &generator)
            inputs.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "H" }))
            inputs.append(
                "HTTP/" + String((0..<length % 4).map { _ in alphabet.randomElement(using: &generator) ?? "1" }))
        }
        for input in inputs {
            #expect(Self.scan(ours, input, format) == Self.scan(glibc, input, format), "\(input)")
        }
    }

    /// The two versions answered without glibc: two conversions, `%c`'s target untouched.
    @Test func theTwoVersionsClientsSendGiveMajorAndMinor() throws {
        let ours = try #require(vmh_sscanf_definition())
        #expect(Self.scan(ours, "HTTP/1.1", "HTTP/%d.%d%c") == [2, 1, 1, Int32(UInt8(ascii: "?"))])
        #expect(Self.scan(ours, "HTTP/1.0", "HTTP/%d.%d%c") == [2, 1, 0, Int32(UInt8(ascii: "?"))])
    }
}
