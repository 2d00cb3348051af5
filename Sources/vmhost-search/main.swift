import Foundation
import VMHostClient

// vmhost-search: the thin terminal client of the search view model, what the seed's RWTFlickrSearchViewController
// is to its view model. It binds `search.states` and `photo.states` to the terminal and sends a command per line:
//
//   any text    search for it          +          the next page
//   :open N     open result N          :close     close the photo
//   :quit       leave (also end of input)
//
// It survives a server restart without the user noticing: the client resumes the stream and retries commands.
// Usage: vmhost-search [--url http://127.0.0.1:8080]   (or VMHOST_URL)

/// Prints `text` when it differs from what the same screen printed last.
actor Terminal {
    private var shown: [String: String] = [:]

    func show(_ screen: String, _ text: String) {
        guard shown[screen] != text, !text.isEmpty else { return }
        shown[screen] = text
        say(text)
    }

    /// Writes a line at once (no buffering: the terminal may be a pipe). A reader that went away (a closed pipe)
    /// ends the program, as it ends `cat`.
    func say(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { exit(0) }
            written += count
        }
    }
}

/// Lines of standard input, read on a thread of their own (`readLine` blocks).
func inputLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        let thread = Thread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        thread.start()
    }
}

let arguments = CommandLine.arguments
var address = ProcessInfo.processInfo.environment["VMHOST_URL"] ?? "http://127.0.0.1:8080"
if let index = arguments.firstIndex(of: "--url"), index + 1 < arguments.count { address = arguments[index + 1] }
guard let baseURL = URL(string: address) else {
    FileHandle.standardError.write(Data("vmhost-search: not a URL: \(address)\n".utf8))
    exit(2)
}

let terminal = Terminal()
let client = VMHostClient(baseURL: baseURL)
let session: VMHostSession
do {
    session = try await client.createSession()
} catch {
    FileHandle.standardError.write(Data("vmhost-search: cannot create a session at \(address): \(error)\n".utf8))
    exit(1)
}
await terminal.say("vmhost-search: type a search (+ more, :open N, :close, :quit)")

let searchScreen = Task {
    do {
        for try await state in session.search.states { await terminal.show("search", SearchScreen.render(state)) }
    } catch {
        await terminal.say("error: \(error)")
    }
}
let photoScreen = Task {
    do {
        for try await state in session.photo.states { await terminal.show("photo", SearchScreen.render(state)) }
    } catch {
        await terminal.say("error: \(error)")
    }
}

for await line in inputLines() {
    let text = line.trimmingCharacters(in: .whitespaces)
    do {
        switch text {
        case "": continue
        case ":quit": break
        case "+": try await session.search.loadMore()
        case ":close": try await session.photo.close()
        default:
            if text.hasPrefix(":open ") {
                let number = Int(text.dropFirst(6).trimmingCharacters(in: .whitespaces)) ?? 0
                let photos = try await session.state().search.results.value?.photos ?? []
                guard number >= 1, number <= photos.count else {
                    await terminal.say("no result \(number)")
                    continue
                }
                try await session.photo.open(photoID: photos[number - 1].id)
            } else {
                try await session.search.execute(text: text)
            }
        }
    } catch VMHostClientError.commandDisabled(let message) {
        await terminal.say("not now: \(message)")
    } catch {
        await terminal.say("error: \(error)")
    }
    if text == ":quit" { break }
}
searchScreen.cancel()
photoScreen.cancel()
try? await session.delete()
