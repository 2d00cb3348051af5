import CLibeventOverrides

/// Whether the functions vmhost defines again for libevent (`Sources/CLibeventOverrides`) run in this process:
/// only on the libevent release they were written for. On another one libevent's own functions run, correct
/// but slower, and evhttp's own refusals are its HTML pages again.
public enum LibeventOverrides {
    /// Whether the overrides run.
    public static var isActive: Bool { vmh_overrides_active() != 0 }

    /// This process's libevent, as `major.minor.patch`.
    public static var libeventVersion: String { version(vmh_libevent_version_number()) }

    /// The libevent the overrides were written for.
    public static var writtenFor: String { version(UInt32(VMH_OVERRIDES_LIBEVENT_VERSION)) }

    private static func version(_ number: UInt32) -> String {
        "\(number >> 24).\((number >> 16) & 0xFF).\((number >> 8) & 0xFF)"
    }
}
