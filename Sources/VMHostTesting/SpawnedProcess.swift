#if canImport(Glibc)
import Glibc
#endif

/// A child process started with posix_spawn.
public final class SpawnedProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: pid_t

    /// Starts `path`; with `standardOutput` or `standardError`, that stream goes to that file (created or
    /// truncated), else it is this process's. `environment` is added to this process's environment.
    public init(
        _ path: String, _ arguments: [String], standardOutput: String? = nil, standardError: String? = nil,
        environment: [String: String] = [:]
    ) throws {
        var pid = pid_t()
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for case (let descriptor, let file?) in [(Int32(1), standardOutput), (2, standardError)] {
            posix_spawn_file_actions_addopen(&actions, descriptor, file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        // NB: the child must not inherit the sockets other tests of this process have open (they are not
        // close-on-exec): a socket held by a child stays open when its test closes it, and its peer never
        // sees the close. glibc 2.34 has `addclosefrom_np`, but its header declares it only with
        // _GNU_SOURCE: looked up at run time, else every open descriptor is closed one by one.
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        } else {
            for descriptor in Self.openDescriptors() where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        var inherited: [UnsafeMutablePointer<CChar>?] = []
        var entry = environ
        while let variable = entry.pointee {
            let name = String(cString: variable).prefix { $0 != "=" }
            if environment[String(name)] == nil { inherited.append(strdup(variable)) }
            entry += 1
        }
        let envp = inherited + environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        let result = posix_spawn(&pid, path, &actions, nil, argv, envp)
        guard result == 0 else { throw TestClientError("posix_spawn \(path) failed: \(result)") }
        self.pid = pid
    }

    /// Sends `number` to the child.
    public func signal(_ number: Int32) { kill(pid, number) }

    /// The descriptors open in this process now (`/proc/self/fd`).
    private static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let descriptor = Int32(name) { descriptors.append(descriptor) }
        }
        return descriptors
    }

    /// Waits for the exit on a thread of its own: the status and when it was seen.
    public func exit() -> Task<(Int32, ContinuousClock.Instant), any Error> {
        Task { try await offPool { (self.waitForExit(), ContinuousClock.now) } }
    }

    /// Waits for the process; returns its exit status (or 128 + signal).
    public func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}
