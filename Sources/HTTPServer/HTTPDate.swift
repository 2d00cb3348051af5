#if canImport(Glibc)
import Glibc
#endif

/// The HTTP date format (RFC 9110 `IMF-fixdate`): `Tue, 24 Nov 2026 00:37:33 GMT`.
enum HTTPDate {
    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `seconds` since the epoch as an HTTP date.
    static func format(_ seconds: Int) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil, (0..<7).contains(Int(parts.tm_wday)), (0..<12).contains(Int(parts.tm_mon))
        else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
        func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(weekdays[Int(parts.tm_wday)]), \(twoDigits(parts.tm_mday)) \(months[Int(parts.tm_mon)]) "
            + "\(1900 + Int(parts.tm_year)) \(twoDigits(parts.tm_hour)):\(twoDigits(parts.tm_min)):"
            + "\(twoDigits(parts.tm_sec)) GMT"
    }
}
