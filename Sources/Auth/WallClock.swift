#if canImport(Glibc)
import Glibc
#endif

/// The time tokens are judged by: seconds since 1970 (`exp` and `nbf` are NumericDates).
public enum WallClock {
    /// Now, from `CLOCK_REALTIME`.
    @Sendable
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
