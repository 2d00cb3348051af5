import CLibevent
import CLibeventShims

/// The id of each request in logs and the `X-Request-ID` response header.
///
/// A client's own `X-Request-ID` is kept when it is 1 to 64 characters of `[A-Za-z0-9._-]` (anything else
/// could forge log lines); otherwise the id is `<random 32-bit hex prefix of this server>-<counter>`.
struct RequestIDGenerator {
    /// The prefix's hex digits.
    private let prefix: [UInt8]
    private var counter: UInt64 = 0

    init() {
        var generator = SystemRandomNumberGenerator()
        prefix = Array(String(UInt32.random(in: .min ... .max, using: &generator), radix: 16).utf8)
    }

    /// The id of the evhttp request `raw`.
    mutating func id(for raw: OpaquePointer) -> String {
        if let headers = evhttp_request_get_input_headers(raw),
            let given = evhttp_find_header(headers, "X-Request-ID")
        {
            let value = String(cString: given)
            if Self.isAcceptable(value) { return value }
        }
        counter += 1
        return Self.generated(prefix: prefix, counter: counter)
    }

    /// The id of a request whose `X-Request-ID` is `given` (a request made in process).
    mutating func id(given: String?) -> String {
        if let given, Self.isAcceptable(given) { return given }
        counter += 1
        return Self.generated(prefix: prefix, counter: counter)
    }

    /// `<prefix>-<counter>`, written byte by byte (the counter by `vmh_format_decimal`, the digits the reply's
    /// `Content-Length` line is written with): up to 15 bytes (a counter below 1,000,000 with an 8-digit prefix)
    /// it is a small string, made without an allocation. NB: string interpolation cost about three times as
    /// much (docs/performance.md, "Receipts").
    static func generated(prefix: [UInt8], counter: UInt64) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(VMH_DECIMAL_CAPACITY)) { digits in
            let count = vmh_format_decimal(digits.baseAddress, 0, UInt(counter))
            return String(unsafeUninitializedCapacity: prefix.count + 1 + count) { bytes in
                var end = 0
                for byte in prefix {
                    bytes[end] = byte
                    end += 1
                }
                bytes[end] = UInt8(ascii: "-")
                end += 1
                for index in 0..<count {
                    bytes[end] = UInt8(bitPattern: digits[index])
                    end += 1
                }
                return end
            }
        }
    }

    /// Whether a client-given id is kept.
    static func isAcceptable(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count) && value.utf8.allSatisfy(isIDByte)
    }

    private static func isIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default: false
        }
    }
}
