import CLibevent
import CLibeventOverrides
import CLibeventShims
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// vmhost's own `evbuffer_add_printf` (`CLibeventShims/evbuffer_printf.c`), which evhttp writes every status
/// and header line with: the bytes must be libevent's `vprintf`'s, for every format.
@Suite("evbuffer_add_printf")
struct EvbufferPrintfTests {
    /// A format and its arguments; `%s` arguments are C strings made for the call.
    enum Argument {
        case text(String)
        /// `count` times `character` (a short name in the test's log).
        case repeated(Character, count: Int)
        /// A NULL `%s` (glibc prints `(null)`).
        case null
        case int(Int32)
        case unsigned(UInt)
    }

    static let cases: [(String, [Argument])] = [
        ("%s: %s\r\n", [.text("X-Request-ID"), .text("0123456789abcdef-1")]),
        ("%s: %s\r\n", [.text("Content-Type"), .text("application/json; charset=utf-8")]),
        ("%s: %s\r\n", [.text("X-Empty"), .text("")]),
        ("%s: %s\r\n", [.text("X-Null"), .null]),
        ("%s: %s\r\n", [.text("X-Unicode"), .text("ünïcødé ✓")]),
        ("HTTP/%d.%d %d %s\r\n", [.int(1), .int(1), .int(200), .text("OK")]),
        ("HTTP/%d.%d %d %s\r\n", [.int(1), .int(0), .int(503), .text("Service Unavailable")]),
        ("%d %d %d %d", [.int(0), .int(-1), .int(Int32.min), .int(Int32.max)]),
        ("100%% of %s", [.text("it")]),
        ("", []),
        ("no conversions\r\n", []),
        // Conversions the fast path leaves to vprintf.
        ("%x\r\n", [.unsigned(0x1f40)]),
        ("%lu bytes", [.unsigned(12_345_678_901)]),
        ("%5d|", [.int(42)]),
        ("%s %s HTTP/%d.%d\r\n", [.text("GET"), .text("/v1/sessions"), .int(1), .int(1)]),
        // Longer than the fast path's stack buffer (512 bytes).
        ("%s: %s\r\n", [.text("X-Long"), .repeated("a", count: 505)]),
        ("%s: %s\r\n", [.text("X-Long"), .repeated("b", count: 4_000)]),
    ]

    @Test(arguments: cases)
    func formatsLikeLibeventsVprintf(format: String, arguments: [Argument]) {
        let ours = Self.formatted(format, arguments) { buffer, format, list in
            vmh_evbuffer_add_vformat(buffer, format, list)
        }
        let libevents = Self.formatted(format, arguments) { buffer, format, list in
            evbuffer_add_vprintf(buffer, format, list)
        }
        #expect(ours.bytes == libevents.bytes)
        #expect(ours.result == libevents.result)
        #expect(ours.result == Int32(ours.bytes.count))
    }

    /// The dynamic linker binds `evbuffer_add_printf` (libevent's calls go through the PLT) to the definition
    /// in this process, not libevent's.
    @Test func theProcessUsesVMHostsDefinition() throws {
        let bound = try #require(dlsym(nil, "evbuffer_add_printf"))
        let ours = try #require(vmh_evbuffer_add_printf_definition())
        #expect(bound == ours)
    }

    /// Appends with `append` to a new evbuffer, the arguments as C varargs; returns the buffer's bytes and the
    /// call's result.
    static func formatted(
        _ format: String, _ arguments: [Argument],
        append: (OpaquePointer?, UnsafePointer<CChar>, CVaListPointer) -> Int32
    ) -> (bytes: [UInt8], result: Int32) {
        let buffer = evbuffer_new()
        defer { evbuffer_free(buffer) }
        var strings: [UnsafeMutablePointer<CChar>?] = []
        defer { for string in strings { free(string) } }
        /// A C string's address as a vararg (an `Int`: the same 64 bits, and a NULL pointer is allowed).
        func cString(_ text: String) -> Int {
            let copy = strdup(text)
            strings.append(copy)
            return Int(bitPattern: copy)
        }
        let varargs: [any CVarArg] = arguments.map { argument in
            switch argument {
            case .text(let text):
                return cString(text)
            case .repeated(let character, let count):
                return cString(String(repeating: character, count: count))
            case .null: return Int(bitPattern: nil as UnsafePointer<CChar>?)
            case .int(let value): return value
            case .unsigned(let value): return value
            }
        }
        let result = format.withCString { format in
            withVaList(varargs) { append(buffer, format, $0) }
        }
        var bytes = [UInt8](repeating: 0, count: evbuffer_get_length(buffer))
        _ = evbuffer_copyout(buffer, &bytes, bytes.count)
        return (bytes, result)
    }
}
