import CFuzzerDriver
import EventLoop
import HTTPServer
import Logging
import Synchronization
import VMHost
import ViewModels

#if canImport(Glibc)
import Glibc
#endif

/// The fuzz target of vmhost's request handling: request targets, routing with the real route table, JSON
/// and every command body (``FuzzCase`` describes the input format and the invariants checked).
///
/// Built by `scripts/fuzz` with `-sanitize=fuzzer,address -D VMHOST_FUZZ`, it is a libFuzzer binary and
/// takes libFuzzer's flags (`VMHostFuzz corpus/ -max_total_time=60`). A plain build (`swift build`) replays
/// inputs instead, which is how a crash found by the fuzzer is reproduced under the debugger:
///
///     swift build --product VMHostFuzz && .build/debug/VMHostFuzz crash-1234abcd Tests/Fuzz/corpus
///
/// Arguments are files or folders of files; each is run once; a broken invariant traps with its message.
@main
enum VMHostFuzz {
    static func main() async {
        let target = await Task { @LoopActor in
            // NB: building the application starts nothing (no listener, no upstream): the router is exactly
            // what `start()` would serve, and the view models are those its sessions host.
            let app = VMHostApplication(configuration: VMHostConfiguration(), logger: Logger(label: "vmhost-fuzz"))
            return (app.makeRouter(), app.sessions.viewModels)
        }.value
        sharedTarget.withLock { $0 = target }
        #if VMHOST_FUZZ
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(
            LLVMFuzzerRunDriver(
                &argc, &argv,
                { data, size in
                    VMHostFuzz.runOne(UnsafeBufferPointer(start: data, count: size))
                    return 0
                }))
        #else
        exit(replay(Array(CommandLine.arguments.dropFirst())))
        #endif
    }

    /// The router and view models, set once before the first input; the C callback cannot capture them.
    private static let sharedTarget = Mutex((Router(), [ViewModelRegistration]()))

    private static func runOne(_ input: UnsafeBufferPointer<UInt8>) {
        let (router, viewModels) = sharedTarget.withLock { $0 }
        FuzzCase(input).run(router: router, viewModels: viewModels)
    }

    /// Runs every file named (or contained in a folder named); returns the exit status.
    private static func replay(_ paths: [String]) -> Int32 {
        guard !paths.isEmpty else {
            print("usage: VMHostFuzz FILE|FOLDER...  (replays fuzz inputs; see scripts/fuzz)")
            return 2
        }
        var count = 0
        for path in paths {
            for file in InputFiles.expand(path) {
                guard let bytes = InputFiles.read(file) else {
                    print("VMHostFuzz: cannot read \(file)")
                    return 1
                }
                bytes.withUnsafeBufferPointer { runOne($0) }
                count += 1
            }
        }
        print("VMHostFuzz: \(count) inputs passed")
        return 0
    }
}

/// Reading inputs without Foundation.
enum InputFiles {
    /// `path` itself, or the regular files directly inside it when it is a folder (sorted).
    static func expand(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [path] }
        defer { closedir(directory) }
        var files: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            files.append(path.hasSuffix("/") ? path + name : path + "/" + name)
        }
        return files.sorted()
    }

    /// The bytes of the file, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 { return nil }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
