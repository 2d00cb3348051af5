import HTTPServer
import JSON
import Redis

extension VMHostConfiguration {
    /// Every setting, in the order of the config file, `--help` and the README: the one place a setting is
    /// written (see ``Setting``).
    public static let settings: [Setting] = [
        .text("host", "VMHOST_HOST", "ADDR", "address to listen on", \.host),
        .integer("port", "VMHOST_PORT", "port to listen on (0 picks a free port)", \.port, 0...65535),
        .url(
            "flickrUrl", "VMHOST_FLICKR_URL", "Flickr REST endpoint (the URL that ?method=... is appended to)",
            \.flickrURL),
        .optionalText(
            "flickrApiKey", "FLICKR_API_KEY", "KEY", "Flickr API key: the real Flickr API; never logged", \.flickrAPIKey
        ),
        .url("productsUrl", "VMHOST_PRODUCTS_URL", "product API base that /products?... is appended to", \.productsURL),
        .choice("productsFormat", "VMHOST_PRODUCTS_FORMAT", "product API dialect", \.productsFormat),
        .integer(
            "productsPageSize", "VMHOST_PRODUCTS_PAGE_SIZE", "products asked for per page", \.productsPageSize, 1...100),
        .choice("logLevel", "VMHOST_LOG_LEVEL", "least severe log level written", \.logLevel),
        .duration(
            "sessionIdleTimeoutSeconds", "VMHOST_SESSION_IDLE_TIMEOUT",
            "a session without requests or streams expires after this many seconds", \.sessionIdleTimeout, .seconds(1),
            1...604_800),
        .integer("maxSessions", "VMHOST_MAX_SESSIONS", "sessions held at once", \.maxSessions, 1...10_000_000),
        .integer(
            "replayCapacity", "VMHOST_REPLAY_CAPACITY", "patches each view model keeps for Last-Event-ID resume",
            \.replay.patches, 0...100_000),
        .integer(
            "replayBytes", "VMHOST_REPLAY_BYTES", "bytes of patches each view model keeps for resume", \.replay.bytes,
            0...64 * 1024 * 1024),
        .integer(
            "maxBodyBytes", "VMHOST_MAX_BODY_BYTES", "largest request body (413 body_too_large beyond)", \.maxBodyBytes,
            1...64 * 1024 * 1024),
        .integer(
            "maxHeaderBytes", "VMHOST_MAX_HEADER_BYTES", "largest request head", \.maxHeaderBytes, 256...1024 * 1024),
        .duration(
            "httpIdleTimeoutSeconds", "VMHOST_HTTP_IDLE_TIMEOUT",
            "seconds a connection may be silent, and a request may take to arrive", \.httpIdleTimeout, .seconds(1),
            1...86_400),
        .duration(
            "keepaliveSeconds", "VMHOST_KEEPALIVE_SECONDS", "seconds between keep-alive comments on an idle stream",
            \.keepaliveInterval, .seconds(1), 1...3600),
        .integer(
            "streamMaxPendingBytes", "VMHOST_STREAM_MAX_PENDING_BYTES",
            "unsent bytes a stream may have before it skips to a fresh snapshot", \.streamMaxPendingBytes,
            1024...1024 * 1024 * 1024),
        .integer(
            "maxConnections", "VMHOST_MAX_CONNECTIONS", "connections served at once (503 overloaded beyond)",
            \.maxConnections, 1...10_000_000),
        .duration(
            "upstreamTimeoutMilliseconds", "VMHOST_UPSTREAM_TIMEOUT_MS", "milliseconds one upstream transfer may take",
            \.upstreamTimeout, .milliseconds(1), 1...600_000),
        .duration(
            "upstreamConnectTimeoutMilliseconds", "VMHOST_UPSTREAM_CONNECT_TIMEOUT_MS",
            "milliseconds connecting to an upstream may take", \.upstreamConnectTimeout, .milliseconds(1), 1...600_000),
        .integer(
            "upstreamMaxConnectionsPerHost", "VMHOST_UPSTREAM_MAX_CONNECTIONS_PER_HOST",
            "connections to one upstream host at once", \.upstreamMaxConnectionsPerHost, 1...100_000),
        .integer(
            "upstreamMaxResponseBytes", "VMHOST_UPSTREAM_MAX_RESPONSE_BYTES", "largest upstream answer read",
            \.upstreamMaxResponseBytes, 1024...1024 * 1024 * 1024),
        .duration(
            "upstreamCacheSeconds", "VMHOST_UPSTREAM_CACHE_SECONDS",
            "seconds Flickr answers are reused (0: not cached)",
            \.upstreamCacheTTL, .seconds(1), 0...86_400),
        .duration(
            "fakeUpstreamLatencyMilliseconds", "VMHOST_FAKE_UPSTREAM_LATENCY_MS",
            "latency of the embedded fake upstream, for demos of loading states", \.fakeUpstreamLatency,
            .milliseconds(1), 0...600_000),
        Setting(
            key: "redisUrl", environment: "VMHOST_REDIS_URL", valueName: "URL",
            help:
                "Redis journal (redis://[user:password@]host:port/db): sessions survive restarts and move between nodes",
            apply: { configuration, value throws(SettingValueError) in
                do {
                    _ = try RedisConfiguration(url: value)
                } catch {
                    throw SettingValueError(requirement: "\(error)")
                }
                configuration.redisURL = value
            },
            value: { $0.redisURL.map(JSONValue.string) ?? .null }
        ),
        .optionalText("nodeId", "VMHOST_NODE_ID", "ID", "this node's id in X-VMHost-Node (default host:port)", \.nodeID)
        {
            value in
            !value.isEmpty && value.utf8.count <= 64 && value.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
                ? nil : "must be 1 to 64 printable ASCII characters"
        },
        .duration(
            "redisTimeoutMilliseconds", "VMHOST_REDIS_TIMEOUT_MS",
            "milliseconds a journal command may take before Redis counts as unavailable", \.redisTimeout,
            .milliseconds(1), 10...600_000),
        .duration(
            "hibernateAfterSeconds", "VMHOST_HIBERNATE_AFTER_SECONDS",
            "with Redis, seconds without requests, streams or work before a session leaves memory for Redis (0: never)",
            \.hibernateAfter, .seconds(1), 0...604_800),
        .optionalText(
            "authHs256SecretFile", "VMHOST_AUTH_HS256_SECRET_FILE", "FILE",
            "turn authentication on: JWTs signed with HS256 by this secret (at least 32 bytes)", \.authHS256SecretFile),
        .optionalText(
            "authJwksFile", "VMHOST_AUTH_JWKS_FILE", "FILE",
            "turn authentication on: JWTs signed by a key of this JWKS (RS256, ES256, EdDSA)", \.authJWKSFile),
        .optionalText("authIssuer", "VMHOST_AUTH_ISSUER", "ISS", "the iss every token must carry", \.authIssuer),
        .optionalText("authAudience", "VMHOST_AUTH_AUDIENCE", "AUD", "the aud every token must carry", \.authAudience),
        .integer(
            "maxSessionsPerSubject", "VMHOST_MAX_SESSIONS_PER_SUBJECT", "sessions one token subject may hold",
            \.maxSessionsPerSubject, 1...1_000_000),
        .integer(
            "maxStreamsPerSession", "VMHOST_MAX_STREAMS_PER_SESSION",
            "open event streams per session (429 too_many_streams beyond)", \.maxStreamsPerSession, 1...100_000),
        .integer(
            "upstreamCallsPerMinute", "VMHOST_UPSTREAM_CALLS_PER_MINUTE",
            "upstream loads a session's commands may start per minute (429 rate_limited beyond)",
            \.upstreamCallsPerMinute, 1...1_000_000),
        .integer(
            "idempotencyBytesPerSession", "VMHOST_IDEMPOTENCY_BYTES_PER_SESSION",
            "bytes of idempotency answers a session keeps", \.idempotencyBytesPerSession, 1024...64 * 1024 * 1024),
        Setting(
            key: "allowedOrigins", environment: "VMHOST_ALLOWED_ORIGINS", valueName: "LIST",
            help: "origins besides the server's own whose pages may POST (comma-separated)",
            apply: { configuration, value throws(SettingValueError) in
                configuration.allowedOrigins = try origins(value)
            },
            value: { $0.allowedOrigins.isEmpty ? .null : .string($0.allowedOrigins.joined(separator: ",")) }
        ),
        .optionalInteger(
            "metricsPort", "VMHOST_METRICS_PORT", "serve /metrics on this port only (the public port answers 404)",
            \.metricsPort, 0...65535),
    ]

    /// `scheme://host[:port]` each, comma-separated, as browsers send them in `Origin`.
    private static func origins(_ value: String) throws(SettingValueError) -> [String] {
        let list = value.split(separator: ",").map { String($0.trimmingHTTPWhitespace()) }.filter { !$0.isEmpty }
        for origin in list {
            let authority =
                origin.hasPrefix("https://")
                ? origin.dropFirst(8) : origin.hasPrefix("http://") ? origin.dropFirst(7) : ""
            guard !authority.isEmpty, !authority.contains("/"), origin == origin.lowercased() else {
                throw SettingValueError(
                    requirement: "must list origins like https://app.example.com, comma-separated, in lower case")
            }
        }
        return list
    }

    /// `config/vmhost.json` as it ships: every setting with its built-in default, in the table's order.
    public static var defaultConfigFile: String {
        let defaults = VMHostConfiguration()
        let lines = settings.map { "    \(JSONValue.string($0.key).serializedString): \($0.value(defaults))" }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    /// The README's settings table: key, flag, environment variable, default and meaning of every setting.
    public static var settingsMarkdown: String {
        var text = "| key | flag | environment | default | meaning |\n|---|---|---|---|---|\n"
        for setting in settings {
            let shown = setting.defaultText.map { "`\($0)`" } ?? "unset"
            text +=
                "| `\(setting.key)` | `\("\(setting.flag) \(setting.valueName)".replacingPipes)` | `\(setting.environment)` | \(shown) "
            text += "| \(setting.help.replacingPipes) |\n"
        }
        return text
    }
}

extension String {
    fileprivate var replacingPipes: String {
        split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|")
    }
}
