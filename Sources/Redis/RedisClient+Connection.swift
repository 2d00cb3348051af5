import EventLoop

/// The connection's life: connect, select, ready, lost, backoff, reconnect; and the watchdog.
extension RedisClient: RedisConnectionDelegate {
    func connect() {
        if connectAttempts > 0 { statistics.reconnects += 1 }
        connectAttempts += 1
        let connection = RedisConnection()
        connection.delegate = self
        // NB: hiredis resolves names with a blocking getaddrinfo; localhost is the one name we accept.
        let host = configuration.host.lowercased() == "localhost" ? "127.0.0.1" : configuration.host
        guard connection.open(host: host, port: configuration.port) else {
            lastConnectionError = connection.errorMessage
            connectionLost()
            return
        }
        self.connection = connection
        connectDeadline = clock.now + configuration.connectTimeout
        isDatabaseSelected = configuration.database == 0 && configuration.password == nil
        if let password = configuration.password {
            // NB: the first command, pipelined with SELECT: Redis answers in order, so SELECT (and anything after)
            // fails with NOAUTH when AUTH failed, and the connection is closed and retried after a backoff.
            var command = RedisCommand()
            command.append("AUTH")
            if let username = configuration.username { command.append(username) }
            command.append(password)
            let database = configuration.database
            let auth = PendingCommand(
                command,
                deadline: clock.now + configuration.connectTimeout, clock: clock
            ) { [weak self, weak connection] result, _ in
                guard let self, let connection else { return }
                self.setUpFinished("AUTH", result, on: connection, settles: database == 0)
            }
            guard connection.send(auth) else {
                closeConnection(reason: "cannot send AUTH")
                return
            }
        }
        if configuration.database != 0 {
            // NB: queued before any other command, and those wait for its reply: none runs on database 0.
            var command = RedisCommand()
            command.append("SELECT")
            command.append(configuration.database)
            let select = PendingCommand(
                command,
                deadline: clock.now + configuration.connectTimeout, clock: clock
            ) { [weak self, weak connection] result, _ in
                guard let self, let connection else { return }
                self.setUpFinished("SELECT \(self.configuration.database)", result, on: connection, settles: true)
            }
            guard connection.send(select) else {
                closeConnection(reason: "cannot send SELECT")
                return
            }
        }
        rearmWatchdog()
        setState(.connecting)
    }

    func connectionDidConnect(_ connection: RedisConnection) {
        guard connection === self.connection else { return }
        becomeReadyIfSettled()
    }

    func connectionDidEnd(_ connection: RedisConnection) {
        guard connection === self.connection else { return }
        lastConnectionError = connection.errorMessage
        connectionLost()
    }

    /// A connection's set-up command (`AUTH`, `SELECT`) answered; the last one (`settles`) makes it ready.
    private func setUpFinished(
        _ name: String, _ result: Result<RedisReply, RedisError>, on connection: RedisConnection, settles: Bool
    ) {
        guard connection === self.connection else { return }
        switch result {
        case .success(.error(let message)):
            // NB: Redis's message (`WRONGPASS invalid username-password pair…`) never quotes the password.
            closeConnection(reason: "\(name) failed: \(message)")
        case .success:
            guard settles else { return }
            isDatabaseSelected = true
            becomeReadyIfSettled()
        case .failure(.unavailable):
            break  // the connection is ending; connectionDidEnd follows
        case .failure(let error):
            closeConnection(reason: "\(name) failed: \(error)")
        }
    }

    private func becomeReadyIfSettled() {
        guard let connection, connection.isConnected, isDatabaseSelected, state == .connecting else { return }
        consecutiveFailures = 0
        connectDeadline = nil
        setState(.ready)
        guard state == .ready else { return }
        for command in waiting.removeAll() where !command.isFinished {
            submit(command)
        }
        rearmWatchdog()
    }

    /// The connection failed or ended: fail what waits for it, then back off and reconnect.
    private func connectionLost() {
        connection = nil
        connectDeadline = nil
        for command in waiting.removeAll() { command.finish(.failure(.unavailable)) }
        rearmWatchdog()
        guard state != .shutdown else { return }
        consecutiveFailures += 1
        reconnectTimer.schedule(after: configuration.reconnectDelay(afterFailures: consecutiveFailures))
        setState(.disconnected)
    }

    func reconnectTimerFired() {
        guard state == .disconnected else { return }
        connect()
    }

    /// Drops the connection: in-flight commands fail with ``RedisError/unavailable``.
    func closeConnection(reason: String) {
        guard let connection else { return }
        if HiredisCallback.isRunning {
            pendingCloseReason = pendingCloseReason ?? reason
            deferredClose.schedule(after: .zero)
            return
        }
        pendingCloseReason = nil
        connection.close(reason: reason)
        // NB: a connected context reported its end from inside close(); a connecting one did not.
        connectionDidEnd(connection)
    }

    func deferredCloseFired() {
        guard let reason = pendingCloseReason else { return }
        closeConnection(reason: reason)
    }

    // MARK: Watchdog

    func watchdogFired() {
        let now = clock.now
        while let first = waiting.firstUnfinished, first.deadline <= now {
            waiting.remove(first)
            first.finish(.failure(.timeout))
        }
        if let connection, let first = connection.inFlight.firstUnfinished, first.deadline <= now {
            first.finish(.failure(.timeout))
            closeConnection(reason: "no reply within \(configuration.commandTimeout)")
        } else if let connectDeadline, connectDeadline <= now {
            closeConnection(reason: "not connected within \(configuration.connectTimeout)")
        }
        rearmWatchdog()
    }

    /// Schedules the watchdog for the earliest deadline, or stops it when nothing waits.
    func rearmWatchdog() {
        let deadlines = [
            connectDeadline, waiting.firstUnfinished?.deadline, connection?.inFlight.firstUnfinished?.deadline,
        ]
        guard let earliest = deadlines.compactMap({ $0 }).min() else {
            watchdog.cancel()
            return
        }
        watchdog.schedule(after: max(.zero, earliest - clock.now))
    }

    func setState(_ newState: RedisClientState) {
        guard state != newState else { return }
        state = newState
        onStateChange?(newState)
    }
}
