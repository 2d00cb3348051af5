import CLibevent
import CLibeventOverrides
import CLibeventShims
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// vmhost's own `evhttp_find_header` and `evutil_ascii_strcasecmp` (`CLibeventShims/header_lookup.c`), which
/// evhttp finds every header with: their results must be libevent's.
@Suite("Header lookup")
struct HeaderLookupTests {
    typealias Compare = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    typealias Find = @convention(c) (UnsafePointer<evkeyvalq>?, UnsafePointer<CChar>?) -> UnsafePointer<CChar>?

    /// libevent's own definition of `name`, the next one after this process's.
    static func libevents<Function>(_ name: String, as type: Function.Type) throws -> Function {
        let symbol = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: -1), name))
        return unsafeBitCast(symbol, to: type)
    }

    static let words: [[UInt8]] = [
        [], Array("Content-Length".utf8), Array("content-length".utf8), Array("CONTENT-LENGTH".utf8),
        Array("Content-Type".utf8), Array("Connection".utf8), Array("connection".utf8), Array("Date".utf8),
        Array("Transfer-Encoding".utf8), Array("X-Request-ID".utf8), Array("x-request-id".utf8),
        Array("@[`{".utf8), Array("AZaz".utf8), Array("azAZ".utf8), Array("Ünïcødé".utf8), Array("ünïcødé".utf8),
        [0x7F], [0x80], [0xFF], [0x41, 0x80], [0x61, 0xC3, 0x9C], [0x61, 0xC3, 0xBC], Array("Content".utf8),
    ]

    @Test func comparesLikeLibeventsForEveryPair() throws {
        let theirs = try Self.libevents("evutil_ascii_strcasecmp", as: Compare.self)
        var random = SystemRandomNumberGenerator()
        var samples = Self.words
        for _ in 0..<300 {
            let count = Int.random(in: 0...6, using: &random)
            // Letters of both cases, their neighbours, and high bytes: where lowering and signedness matter.
            let alphabet: [UInt8] = [0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0x7B, 0x2D, 0x7F, 0x80, 0xC3, 0xFF]
            samples.append((0..<count).map { _ in alphabet.randomElement(using: &random) ?? 0x41 })
        }
        var checked = 0
        for left in samples {
            for right in samples.prefix(60) {
                let ours = Self.compare(left, right, with: evutil_ascii_strcasecmp)
                let libevent = Self.compare(left, right, with: theirs)
                #expect(ours == libevent, "\(left) vs \(right)")
                checked += 1
            }
        }
        #expect(checked == samples.count * 60)
        #expect(Self.compare(Array("Content-Length".utf8), Array("content-LENGTH".utf8), with: theirs) == 0)
    }

    @Test func findsTheHeaderLibeventFinds() throws {
        let theirs = try Self.libevents("evhttp_find_header", as: Find.self)
        let request = try #require(evhttp_request_new(nil, nil))
        defer { evhttp_request_free(request) }
        let headers = try #require(evhttp_request_get_output_headers(request))
        // Names sharing first letters and prefixes, one twice (the first is found), and different cases.
        let list = [
            ("Content-Length", "15"), ("Content-Type", "application/json"), ("X-Request-ID", "a-1"),
            ("connection", "close"), ("Date", "today"), ("content-type", "second"), ("Cache-Control", "no-cache"),
        ]
        for (name, value) in list { _ = evhttp_add_header(headers, name, value) }
        let names = [
            "Content-Length", "CONTENT-LENGTH", "content-type", "Content-Typ", "Content-Types", "Connection",
            "Date", "date", "X-Request-ID", "x-request-id", "Transfer-Encoding", "Host", "Cache-Control",
            "C", "", "Ünïcødé", "Expect",
        ]
        for name in names {
            let ours = name.withCString { evhttp_find_header(headers, $0) }
            let libevent = name.withCString { theirs(headers, $0) }
            #expect(ours == libevent, "\(name)")
        }
        #expect(evhttp_find_header(headers, "CONTENT-TYPE").map { String(cString: $0) } == "application/json")
        #expect(evhttp_find_header(headers, "Transfer-Encoding") == nil)
        // An empty list.
        let empty = try #require(evhttp_request_get_input_headers(request))
        #expect(evhttp_find_header(empty, "Host") == nil)
        #expect(theirs(empty, "Host") == nil)
    }

    /// The dynamic linker binds both functions (libevent's calls go through the PLT) to the definitions in this
    /// process, not libevent's.
    @Test(arguments: ["evutil_ascii_strcasecmp", "evhttp_find_header"])
    func theProcessUsesVMHostsDefinition(name: String) throws {
        let bound = try #require(dlsym(nil, name))
        let definition =
            name == "evhttp_find_header"
            ? vmh_evhttp_find_header_definition() : vmh_evutil_ascii_strcasecmp_definition()
        let ours = try #require(definition)
        #expect(bound == ours)
        let next = try #require(dlsym(UnsafeMutableRawPointer(bitPattern: -1), name))
        #expect(next != ours, "libevent's definition is a different one")
    }

    /// `compare` on NUL-terminated copies of `left` and `right`, as -1, 0 or 1.
    static func compare(
        _ left: [UInt8], _ right: [UInt8],
        with compare: Compare
    ) -> Int32 {
        let a = (left + [0]).map { CChar(bitPattern: $0) }
        let b = (right + [0]).map { CChar(bitPattern: $0) }
        return a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in compare(a.baseAddress, b.baseAddress).signum() }
        }
    }
}
