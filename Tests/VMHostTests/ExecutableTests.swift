import Testing
import VMHostTesting

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `vmhost` binary, as an operator would.
@Suite("The vmhost executable")
struct ExecutableTests {
    /// `.build/debug/vmhost` next to this package (built by `swift build --build-tests`).
    static var binary: String {
        var path = Substring(#filePath)
        for _ in 0..<3 {  // …/Tests/VMHostTests/ExecutableTests.swift → the package root
            if let slash = path.lastIndex(of: "/") { path = path[..<slash] }
        }
        return path + "/.build/debug/vmhost"
    }

    /// Writes `json` to a fresh configuration file (the caller unlinks it) and returns its path.
    static func writeConfig(_ json: String) throws -> String {
        let path = "/tmp/vmhost-test-config-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).json"
        guard let file = fopen(path, "w") else { throw TestClientError("cannot write \(path)") }
        fputs(json, file)
        fclose(file)
        return path
    }

    /// Starts vmhost on a port it picks itself (`--port 0`, so no other test can take it first) and reads
    /// the port from its `vmhost listening` log line.
    static func startVMHost(_ arguments: [String]) async throws -> (SpawnedProcess, Int) {
        let (process, port, _) = try await startVMHost(arguments, environment: [:])
        return (process, port)
    }

    /// ``startVMHost(_:)`` with `environment` added to the process's, also returning what it logged up to then.
    static func startVMHost(
        _ arguments: [String], environment: [String: String]
    ) async throws -> (SpawnedProcess, Int, String) {
        let log = "/tmp/vmhost-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { unlink(log) }
        let process = try SpawnedProcess(
            binary, ["--port", "0", "--log-level", "info"] + arguments, standardError: log, environment: environment)
        for _ in 0..<200 {
            let prefix = "address=127.0.0.1:"
            let text = (try? String(contentsOfLog: log)) ?? ""
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
            if let word = words.first(where: { $0.hasPrefix(prefix) }), let port = Int(word.dropFirst(prefix.count)) {
                return (process, port, text)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.signal(SIGKILL)
        throw TestClientError("vmhost did not start listening")
    }

    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func sigtermEndsStreamsAndExitsZeroWithinFiveSeconds() async throws {
        let (process, port) = try await Self.startVMHost([])
        let client = TestHTTPClient(port: port)
        let id = try #require(try await client.post("/v1/sessions").json?["id"]?.stringValue)
        let stream = try await TestEventStream(port: port, path: "/v1/sessions/\(id)/products/events")
        #expect(try await stream.next()?.event == "snapshot")

        let started = ContinuousClock.now
        process.signal(SIGTERM)
        let exit = process.exit()
        #expect(try await stream.next() == nil, "the stream ended with its final chunk")
        let (status, exited) = try await exit.value
        #expect(status == 0)
        #expect(exited - started < .seconds(5))
    }

    /// Whether this process may open the ~1,100 sockets of the busy shutdown test (raising its soft limit).
    static var canOpenManySockets: Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return limit.rlim_cur >= 4096
    }

    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0 && ExecutableTests.canOpenManySockets))
    func sigtermWithAThousandStreamsAndSearchesInFlight() async throws {
        // A Flickr upstream that accepts connections and never answers: every search hangs until aborted.
        let hangingFlickr = try TestListener()
        // NB: 20 streams of each session (the default allows 8).
        let config = try Self.writeConfig(#"{"maxStreamsPerSession": 20}"#)
        defer { unlink(config) }
        let (process, port) = try await Self.startVMHost(
            ["--flickr-url", "http://127.0.0.1:\(hangingFlickr.port)/services/rest/", "--config", config]
        )

        let sessionCount = 50
        let streamsPerSession = 20
        var ids: [String] = []
        for _ in 0..<sessionCount {
            ids.append(try #require(try await TestHTTPClient(port: port).post("/v1/sessions").json?["id"]?.stringValue))
        }
        // 1,000 multiplexed streams, opened 20 at a time.
        var streams: [TestEventStream] = []
        for id in ids {
            let batch = try await withThrowingTaskGroup(of: TestEventStream.self) { group in
                for _ in 0..<streamsPerSession {
                    group.addTask { try await TestEventStream(port: port, path: "/v1/sessions/\(id)/events") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            streams += batch
        }
        #expect(streams.count == 1000)
        for stream in streams {
            #expect(stream.status == 200)
            #expect(try await stream.next()?.event == "search.snapshot")
        }
        // One search per session in flight, each command waiting for its outcome (Prefer: wait=30).
        let commands = Task {
            try await withThrowingTaskGroup(of: TestHTTPResponse.self) { group in
                for (index, id) in ids.enumerated() {
                    group.addTask {
                        try await TestHTTPClient(port: port).post(
                            "/v1/sessions/\(id)/search/execute", json: ["text": .string("aurora \(index)")],
                            headers: [("Prefer", "wait=30")]
                        )
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        // Wait until every search is loading (its patch reached the streams), then signal.
        for stream in streams.enumerated() where stream.offset % streamsPerSession == 0 {
            var loading = false
            while !loading, let event = try await stream.element.next() {
                loading = event.event == "search.patch" && event.data.contains("isSearching")
            }
            #expect(loading)
        }

        // The searches really are upstream, hanging.
        let upstream = try await offPool { try hangingFlickr.accept() }
        #expect(try await offPool { try upstream.readRequestHead() }.contains("method=flickr.photos.search"))

        let started = ContinuousClock.now
        process.signal(SIGTERM)
        // NB: the exit is timed on a thread of its own: this test process may be slow (e.g. under TSan).
        let exit = process.exit()
        #expect(try await offPool { upstream.waitForPeerClose(timeoutSeconds: 5) }, "the transfer was aborted")
        let answers = try await commands.value
        #expect(answers.count == sessionCount)
        for answer in answers {
            // The wait ends at shutdown with the state of that moment: the search was still loading.
            #expect(answer.status == 200, "an in-flight command is answered, not cut off")
            #expect(answer.header("Preference-Applied") == "wait=30")
            #expect(answer.json?["results"]?["status"] == "loading")
        }
        var cleanEnds = 0
        for stream in streams {
            // Patches may still arrive; the stream must then end with its final chunk, not a reset.
            while try await stream.next() != nil {}
            cleanEnds += 1
        }
        #expect(cleanEnds == 1000)
        let (status, exited) = try await exit.value
        #expect(status == 0)
        #expect(exited - started < .seconds(5))
    }

    /// The libevent overrides (`Sources/CLibeventOverrides`) run on the libevent they were written for, and fall back
    /// to libevent's own functions otherwise: forced off here (`VMHOST_LIBEVENT_OVERRIDES=off`, what another
    /// libevent release does), vmhost says so and still serves (headers found, versions read), and evhttp's own
    /// refusals are its HTML pages again; on, they are the API's JSON.
    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func theLibeventOverridesFallBackToLibeventsOwnFunctions() async throws {
        for active in [true, false] {
            let (process, port, log) = try await Self.startVMHost(
                [], environment: active ? [:] : ["VMHOST_LIBEVENT_OVERRIDES": "off"])
            #expect(log.contains("libevent is not the release vmhost's overrides were written for") == !active)
            let client = TestHTTPClient(port: port)
            #expect(try await client.get("/healthz").status == 200)
            let created = try await client.post("/v1/sessions", headers: [("Content-Type", "application/json")])
            #expect(created.status == 201)
            let raw = try await RawConnection.open(port: port)
            try await raw.send(Array("POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n".utf8))
            let refusal = try await raw.response(method: "POST")
            raw.close()
            #expect(refusal.status == 413)
            #expect(refusal.header("Content-Type")?.hasPrefix(active ? "application/json" : "text/html") == true)
            process.signal(SIGTERM)
            #expect(try await offPool { process.waitForExit() } == 0)
        }
    }

    @Test(.enabled(if: access(ExecutableTests.binary, X_OK) == 0))
    func badCommandLinesAreRefusedWithUsageStatus() async throws {
        let refused: [[String]] = [
            ["--port", "70000"], ["--port=x"], ["--bogus"], ["--port"], ["serve"], ["--config", "/nonexistent.json"],
        ]
        for arguments in refused {
            let process = try SpawnedProcess(Self.binary, arguments)
            #expect(try await offPool { process.waitForExit() } == 64, "\(arguments)")
        }
        let help = try SpawnedProcess(Self.binary, ["--help"])
        #expect(try await offPool { help.waitForExit() } == 0)
    }
}

extension String {
    /// The whole file as text (a log being written by another process).
    init(contentsOfLog path: String) throws {
        guard let bytes = readFile(path) else { throw TestClientError("cannot open \(path)") }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
