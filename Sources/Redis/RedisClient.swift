import EventLoop

/// A Redis client on the event loop, built on hiredis' async API and its libevent adapter.
///
/// Design:
/// - One connection, on ``EventLoop/shared``'s event base; every callback runs on the loop, so the client
///   is ``LoopActor``-isolated and never blocks or locks. Commands go out binary-safe, each argument with its
///   length, never through format strings: encoded by ``RedisCommand`` in the Redis protocol and handed to
///   hiredis as they are (`redisAsyncFormattedCommand`; the same bytes `redisAsyncCommandArgv` would format,
///   without an argv to build and hiredis' formatting per argument).
/// - Pipelining: any number of commands may be in flight; hiredis answers them in order, and each
///   command's continuation is resumed exactly once: by its reply, by the timeout, by the connection
///   ending (hiredis calls every pending callback with a NULL reply), or by ``shutdown()``.
/// - hiredis 0.14 has no timeouts: one loop timer (the watchdog) watches the oldest deadline. A command
///   without a reply after ``RedisConfiguration/commandTimeout`` fails with ``RedisError/timeout`` and the
///   connection is dropped (a hung server means a bad connection); the commands behind it fail with
///   ``RedisError/unavailable``. A connect (with its `SELECT`) gets ``RedisConfiguration/connectTimeout``.
/// - hiredis never reconnects: after a failed connect or a lost connection the client reconnects with
///   exponential backoff (``RedisConfiguration/reconnectBackoffMinimum`` doubling up to
///   ``RedisConfiguration/reconnectBackoffMaximum``). While it waits, commands fail fast with
///   ``RedisError/unavailable``; while it connects, they queue and go out once the connection is ready
///   (after `SELECT` when the database is not 0), so none can run against the wrong database.
/// - Memory: hiredis' `ac->data` points at the ``RedisConnection`` unretained (the client keeps it alive
///   while the context exists); each command's privdata is one `Unmanaged` retain, given back in its
///   callback. Contexts are freed only outside hiredis callbacks (deferred to a zero-delay timer when
///   asked from inside one), as hiredis 0.14 may free a context under a running callback otherwise.
@LoopActor
public final class RedisClient {
    /// The configuration the client was created with.
    public let configuration: RedisConfiguration
    /// The current state; ``onStateChange`` hears every change.
    public internal(set) var state: RedisClientState = .idle
    /// Counters for metrics.
    public internal(set) var statistics = RedisClientStatistics()
    /// Why the last connection attempt failed or the last connection ended, for logs.
    public internal(set) var lastConnectionError: String?
    /// Called on the loop after every state change, with the new state.
    public var onStateChange: (@LoopActor (RedisClientState) -> Void)?
    /// Called on the loop with the round-trip time of every command that got a reply (errors included).
    public var onLatency: (@LoopActor (Duration) -> Void)?

    // NB: internal rather than private for RedisClient+Connection.swift.
    var connection: RedisConnection?
    var isDatabaseSelected = false
    var waiting = CommandQueue()
    var connectDeadline: ContinuousClock.Instant?
    var consecutiveFailures = 0
    var connectAttempts = 0
    var pendingCloseReason: String?
    lazy var watchdog = LoopTimer(clock: clock) { [weak self] in self?.watchdogFired() }
    lazy var reconnectTimer = LoopTimer(clock: clock) { [weak self] in self?.reconnectTimerFired() }
    lazy var deferredClose = LoopTimer { [weak self] in self?.deferredCloseFired() }

    /// Writes the commands sent so far to the socket now, rather than on the loop's next turn (one write for
    /// a batch: call it once the batch is sent).
    public func writeNow() {
        connection?.writeNow()
    }

    /// Whether commands go out at once (the state is ``RedisClientState/ready``).
    public var isAvailable: Bool { state == .ready }

    /// The clock of command and connect deadlines and of latencies (the application's; what the journal on
    /// this client may read time from).
    public let clock: LoopClock

    /// Creates a client; nothing happens until ``start()``.
    /// - Parameter clock: the clock of deadlines and latencies (the application's).
    public init(configuration: RedisConfiguration, clock: LoopClock = LoopClock()) {
        self.configuration = configuration
        self.clock = clock
    }

    isolated deinit {
        guard let connection else { return }
        if HiredisCallback.isRunning {
            Task { @LoopActor in connection.close() }
        } else {
            connection.close()
        }
    }

    /// Connects (asynchronously; watch ``state``) and keeps reconnecting until ``shutdown()``.
    /// Calling it again has no effect.
    public func start() {
        guard state == .idle else { return }
        connect()
    }

    /// Stops for good: the connection closes, every pending command fails with ``RedisError/unavailable``,
    /// and later commands fail at once.
    public func shutdown() {
        guard state != .shutdown else { return }
        state = .shutdown
        reconnectTimer.cancel()
        connectDeadline = nil
        for command in waiting.removeAll() { command.finish(.failure(.unavailable)) }
        closeConnection(reason: "shut down")
        watchdog.cancel()
        onStateChange?(.shutdown)
    }

    /// Sends one command and waits for its reply.
    ///
    /// Many commands may be in flight at once; their replies come back in the order they were sent.
    /// Task cancellation is not observed: a command, once sent, ends by reply, timeout or disconnect.
    /// - Parameter arguments: the command and its arguments, binary-safe (e.g. `[Array("GET".utf8), key]`).
    /// - Returns: the reply (never ``RedisReply/error(_:)`` at the top level).
    /// - Throws: ``RedisError/server(_:)`` for an error reply; ``RedisError/unavailable`` when not
    ///   connected or when the connection is lost first; ``RedisError/timeout``; ``RedisError/invalidCommand(_:)``
    ///   for an empty command or one that breaks reply ordering (`SUBSCRIBE` and friends, `MONITOR`,
    ///   `CLIENT REPLY`) or the configured database (`SELECT`).
    public func send(_ arguments: [[UInt8]]) async throws(RedisError) -> RedisReply {
        typealias Outcome = CheckedContinuation<Result<RedisReply, RedisError>, Never>
        let result = await withCheckedContinuation { (continuation: Outcome) in
            send(arguments) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends one command and calls `completion` on the loop, exactly once, with its outcome: the same as the
    /// `async` overload without a task or a continuation. When the command cannot be sent, `completion` runs
    /// before this returns.
    public func send(
        _ arguments: [[UInt8]], then completion: @escaping @LoopActor (Result<RedisReply, RedisError>) -> Void
    ) {
        send(RedisCommand(arguments), then: completion)
    }

    /// Sends one command already encoded (``RedisCommand``) and calls `completion` on the loop, exactly once, with
    /// its outcome (the journal's write path builds its commands so, once per write). The same refusals and
    /// errors as ``send(_:)``.
    public func send(
        _ command: RedisCommand, then completion: @escaping @LoopActor (Result<RedisReply, RedisError>) -> Void
    ) {
        if let refusal = Self.refusal(of: command) {
            statistics.commandsFailed += 1
            completion(.failure(refusal))
            return
        }
        guard state == .ready || state == .connecting else {
            statistics.commandsFailed += 1
            completion(.failure(.unavailable))
            return
        }
        enqueue(pending(command, then: completion))
    }

    /// A command on its way with the client's deadline, whose outcome is recorded, then given to `completion`.
    private func pending(
        _ command: RedisCommand, then completion: @escaping @LoopActor (Result<RedisReply, RedisError>) -> Void
    ) -> PendingCommand {
        PendingCommand(command, deadline: clock.now + configuration.commandTimeout, clock: clock) {
            [self] result, latency in
            record(result, latency: latency)
            completion(result)
        }
    }

    /// Sends `transaction` (its standalone commands, then `MULTI`, its queued commands and `EXEC`) and calls
    /// `completion` on the loop, exactly once, with an array of one reply per command, the standalone ones first
    /// (a command that failed at run time gives its error there, ``RedisReply/error(_:)``, and the others still
    /// run), or a failure for the whole: ``RedisError/server(_:)`` when Redis refused a queued command as it
    /// queued it (none of the queued ones ran; the standalone ones did), or the connection's failure (each may
    /// have run or not). Only while the client is ``RedisClientState/ready`` (a transaction is not queued behind a
    /// connect): otherwise ``RedisError/unavailable`` before this returns.
    /// - Precondition: the commands are ordinary ones (no `MULTI`, `EXEC`, `WATCH`, subscribe or `SELECT`).
    public func send(
        _ transaction: borrowing RedisTransaction,
        then completion: @escaping @LoopActor (Result<RedisReply, RedisError>) -> Void
    ) {
        guard state == .ready, !transaction.isEmpty, let connection else {
            statistics.commandsFailed += 1
            completion(.failure(.unavailable))
            return
        }
        let isQueued = transaction.queuedCount > 0
        // The standalone commands answered before the last command: collected (none: no collector).
        let collected = transaction.standaloneCount - (isQueued ? 0 : 1)
        let collector = collected > 0 ? ReplyCollector(capacity: transaction.count) : nil
        let answer = pending(Self.exec) { result in
            completion(Self.replies(collected: collector?.replies ?? [], expected: collected, last: result, isQueued))
        }
        guard connection.send(transaction, answer: answer, standaloneReplies: collector) else {
            answer.finish(.failure(.unavailable))
            return
        }
        statistics.commandsSent += 1
        if !watchdog.isScheduled { rearmWatchdog() }
    }

    /// A transaction's answer from the standalone replies collected and the outcome of its last command: `EXEC`
    /// (`isQueued`), else the last standalone command, whose error reply is its reply in the array.
    private nonisolated static func replies(
        collected: [RedisReply], expected: Int, last: Result<RedisReply, RedisError>, _ isQueued: Bool
    ) -> Result<RedisReply, RedisError> {
        // NB: fewer replies than commands only when the connection went away, which fails `last` too.
        guard collected.count == expected else { return last.flatMap { _ in .failure(.unavailable) } }
        switch (last, isQueued) {
        case (.success(.array(let replies)), true):
            return .success(.array(collected.isEmpty ? replies : collected + replies))
        case (.success, true):
            return .failure(.protocolError("EXEC answered without an array"))
        case (.success(let reply), false):
            return .success(.array(collected + [reply]))
        case (.failure(.server(let message)), false):
            return .success(.array(collected + [.error(message)]))
        case (.failure, _):
            return last
        }
    }

    /// `EXEC`, encoded once.
    private static let exec: RedisCommand = {
        var command = RedisCommand([Array("EXEC".utf8)])
        command.seal()
        return command
    }()

    /// Sends one command given as strings (UTF-8); otherwise the same as the `[[UInt8]]` overload.
    public func send(_ arguments: [String]) async throws(RedisError) -> RedisReply {
        try await send(arguments.map { Array($0.utf8) })
    }

    // MARK: Commands

    private func enqueue(_ command: PendingCommand) {
        switch state {
        case .ready:
            submit(command)
        case .connecting:
            waiting.append(command)
            if !watchdog.isScheduled { rearmWatchdog() }
        case .idle, .disconnected, .shutdown:
            command.finish(.failure(.unavailable))
        }
    }

    func submit(_ command: PendingCommand) {
        guard let connection, connection.send(command) else {
            command.finish(.failure(.unavailable))
            return
        }
        statistics.commandsSent += 1
        if !watchdog.isScheduled { rearmWatchdog() }
    }

    private func record(_ result: Result<RedisReply, RedisError>, latency: Duration?) {
        switch result {
        case .success:
            if let latency { onLatency?(latency) }
        case .failure(let error):
            statistics.commandsFailed += 1
            switch error {
            case .timeout: statistics.timeouts += 1
            case .server: if let latency { onLatency?(latency) }
            default: break
            }
        }
    }

    /// The commands that break reply ordering or the configured database, lower case.
    private static let refusedCommands: [[UInt8]] = [
        "subscribe", "psubscribe", "ssubscribe", "unsubscribe", "punsubscribe", "sunsubscribe", "monitor", "select",
    ].map { Array($0.utf8) }

    /// Whether `bytes` spell `lowercase` in any case (ASCII).
    /// NB: compared in place, without a lower-case copy: this runs for every command.
    nonisolated private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        for (byte, expected) in zip(bytes, lowercase)
        where (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected {
            return false
        }
        return true
    }

    private static func refusal(of command: RedisCommand) -> RedisError? {
        guard let first = command.argument(0) else { return .invalidCommand("empty command") }
        // NB: every refused command name has 6 to 12 bytes; most commands (GET, EVALSHA, …) stop here.
        guard (6...12).contains(first.count) else { return nil }
        for name in refusedCommands where equalsIgnoringCase(first, name) {
            return .invalidCommand(
                "\(String(decoding: name, as: UTF8.self).uppercased()) is not supported by this client")
        }
        if equalsIgnoringCase(first, Array("client".utf8)), let second = command.argument(1),
            equalsIgnoringCase(second, Array("reply".utf8))
        {
            return .invalidCommand("CLIENT REPLY is not supported by this client")
        }
        return nil
    }
}

extension RedisClient {
    /// Commands handed to hiredis and not yet answered.
    var commandsInFlight: Int { connection?.inFlight.count ?? 0 }
}
