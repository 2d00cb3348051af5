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
        Self.closeInheritedDescriptors(in: &actions)
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

    /// Adds to `actions` the closing of every descriptor from 3 on, after the actions already added.
    ///
    /// NB: a child must not inherit the sockets other tests of this process have open (curl's and hiredis's are
    /// not close-on-exec): a socket held by a child stays open when its owner closes it, and its peer does not see
    /// the close until the child exits. glibc 2.34 has `addclosefrom_np`, but its header declares it only with
    /// _GNU_SOURCE: looked up at run time, else every open descriptor is closed one by one.
    public static func closeInheritedDescriptors(in actions: inout posix_spawn_file_actions_t) {
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        } else {
            for descriptor in openDescriptors() where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
    }

    /// Sends `number` to the child.
    public func signal(_ number: Int32) { kill(pid, number) }

    /// Whether the child holds the socket listening on 127.0.0.1:`port`: a check that the server a test talks to is
    /// the one it started. A port picked free can be taken by another test's server before this one binds it (and
    /// this one then exits, or with `SO_REUSEPORT` shares it); that server answers `/healthz` just as well.
    public func isListening(onPort port: Int) -> Bool {
        Self.process(pid, isListeningOnPort: port)
    }

    /// Whether process `pid` holds the socket listening on 127.0.0.1:`port` (`/proc/net/tcp`, `/proc/PID/fd`).
    public static func process(_ pid: pid_t, isListeningOnPort port: Int) -> Bool {
        let hex = String(port, radix: 16, uppercase: true)
        let local = "0100007F:" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        // The inodes of the sockets listening (state 0A) on that address: fields local, remote, state, ..., inode.
        let listening = readText("/proc/net/tcp").split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count > 9 && fields[1] == local && fields[3] == "0A" ? "socket:[\(fields[9])]" : nil
        }
        guard !listening.isEmpty else { return false }
        return descriptorTargets(of: pid).contains { listening.contains($0) }
    }

    /// What each descriptor of `pid` refers to (`socket:[INODE]`, a path, ...).
    private static func descriptorTargets(of pid: pid_t) -> [String] {
        var buffer = [CChar](repeating: 0, count: 256)
        return directoryEntries("/proc/\(pid)/fd").compactMap { name in
            let count = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count)
            return count > 0 ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        }
    }

    /// A whole text file read to its end, or empty. NB: not Foundation's `String(contentsOfFile:)`: the files of
    /// `/proc` report no size, and it stopped after its first read (4,071 of `/proc/kallsyms`' 5.4 MB here).
    private static func readText(_ path: String) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The descriptors open in this process now (`/proc/self/fd`).
    private static func openDescriptors() -> [Int32] {
        directoryEntries("/proc/self/fd").compactMap { Int32($0) }
    }

    /// The names in directory `path` (with `.` and `..`), or none when it cannot be read.
    private static func directoryEntries(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(
                withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            )
        }
        return names
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
