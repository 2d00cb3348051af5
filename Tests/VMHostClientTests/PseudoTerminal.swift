import Foundation
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// A program run on a pseudo-terminal, as a person at a terminal runs it: the test types lines and reads the screen.
final class PseudoTerminal: @unchecked Sendable {
    let pid: pid_t
    private let master: Int32
    private var output: [UInt8] = []
    /// Where the next `waitFor` starts looking: text already matched is not matched again.
    private var consumed = 0

    init(_ path: String, _ arguments: [String]) throws {
        // NB: Glibc's Swift module leaves out posix_openpt and its friends (they need _XOPEN_SOURCE): looked up.
        typealias Call = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let openSymbol = dlsym(nil, "posix_openpt"), let grantSymbol = dlsym(nil, "grantpt"),
            let unlockSymbol = dlsym(nil, "unlockpt"), let nameSymbol = dlsym(nil, "ptsname")
        else { throw TestClientError("no pseudo-terminal functions") }
        master = unsafeBitCast(openSymbol, to: Call.self)(O_RDWR | O_NOCTTY)
        guard master >= 0, unsafeBitCast(grantSymbol, to: Call.self)(master) == 0,
            unsafeBitCast(unlockSymbol, to: Call.self)(master) == 0,
            let name = unsafeBitCast(nameSymbol, to: Name.self)(master)
        else {
            throw TestClientError("no pseudo-terminal")
        }
        let slavePath = String(cString: name)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor in Int32(0)...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, slavePath, O_RDWR, 0)
        }
        // NB: the master too, and every socket other tests have open: a terminal program that held one (an upstream
        // connection curl had closed) kept it open for its whole run (UpstreamAbortTests waited 5 s for that close).
        SpawnedProcess.closeInheritedDescriptors(in: &actions)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard result == 0 else {
            close(master)
            throw TestClientError("posix_spawn \(path) failed: \(result)")
        }
        self.pid = pid
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(master)
    }

    /// Types `line` and Enter.
    func type(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Everything the program wrote (and the terminal echoed) so far.
    var screen: String { String(decoding: output, as: UTF8.self) }

    /// Waits until `text` appears after what earlier waits matched; returns the screen from there on, or nil.
    func waitFor(_ text: String, timeout: Duration = .seconds(20)) async -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            drain()
            let tail = String(decoding: output[consumed...], as: UTF8.self)
            if let range = tail.range(of: text) {
                consumed += tail[..<range.upperBound].utf8.count
                return String(tail[range.lowerBound...])
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Waits for the program to exit; its exit status, or nil if it is still running after `timeout`.
    func exitStatus(timeout: Duration = .seconds(10)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return (status >> 8) & 0xff }
            drain()
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            output += buffer[..<count]
        }
    }
}
