#if canImport(Glibc)
import Glibc
#endif

/// The whole file at `path` as bytes (a file another process may still be writing: what is there now); nil when
/// it cannot be opened.
public func readFile(_ path: String) -> [UInt8]? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}
