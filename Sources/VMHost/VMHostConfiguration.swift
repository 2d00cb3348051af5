import JSON
import Logging
import Sessions

/// The product API dialect spoken by `--products-url`.
public enum ProductsFormat: String, Sendable, CaseIterable {
    /// `{"success", "data", "page"}` (see API.md).
    case envelope
    /// The public DummyJSON API's shape.
    case dummyjson
}

/// Everything vmhost can be configured with: built-in defaults, overridden by the config file, then the
/// environment, then command-line flags.
///
/// Durations are `Duration`s; their config-file keys and environment variables keep their units
/// (`sessionIdleTimeoutSeconds`, `VMHOST_UPSTREAM_TIMEOUT_MS`), named in each property's comment.
public struct VMHostConfiguration: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 8080
    /// Flickr REST endpoint; nil means the real API when a key is set, else the embedded fake.
    public var flickrURL: String?
    public var flickrAPIKey: String?
    /// Product API base; nil means the embedded fake upstream.
    public var productsURL: String?
    public var productsFormat = ProductsFormat.envelope
    public var productsPageSize = 20
    public var logLevel = Logger.Level.info

    /// How long a session lives without a request and without an open stream (`sessionIdleTimeoutSeconds`).
    public var sessionIdleTimeout = Duration.seconds(1800)
    public var maxSessions = 100_000
    /// What each view model keeps for `Last-Event-ID` resume (`replayCapacity` patches, `replayBytes` bytes).
    public var replay = ReplayLimits()

    public var maxBodyBytes = 64 * 1024
    public var maxHeaderBytes = 16 * 1024
    /// How long a connection may be silent, and how long a request may take to arrive (`httpIdleTimeoutSeconds`).
    public var httpIdleTimeout = Duration.seconds(30)
    /// How often an idle stream gets a keep-alive comment (`keepaliveSeconds`).
    public var keepaliveInterval = Duration.seconds(15)
    public var streamMaxPendingBytes = 256 * 1024
    /// Connections served at once; a request on a further connection gets `503 overloaded`.
    public var maxConnections = 20_000

    /// How long one upstream transfer may take in all (`upstreamTimeoutMilliseconds`).
    public var upstreamTimeout = Duration.milliseconds(15_000)
    /// How long connecting to an upstream may take (`upstreamConnectTimeoutMilliseconds`).
    public var upstreamConnectTimeout = Duration.milliseconds(5_000)
    public var upstreamMaxConnectionsPerHost = 1024
    public var upstreamMaxResponseBytes = 8 * 1024 * 1024
    /// How long answers of cacheable upstream calls (Flickr) are reused (`upstreamCacheSeconds`).
    public var upstreamCacheTTL = Duration.seconds(60)

    /// Latency of the embedded fake upstream, for demos of loading states (`fakeUpstreamLatencyMilliseconds`).
    public var fakeUpstreamLatency = Duration.zero

    /// The Redis journal (`redis://host:port/db`); nil keeps sessions in memory only.
    public var redisURL: String?
    /// This node's id in `X-VMHost-Node` and in the journal's owner tokens; nil means `host:port`.
    public var nodeID: String?
    /// How long a journal command may take before Redis counts as unavailable (`redisTimeoutMilliseconds`).
    public var redisTimeout = Duration.milliseconds(2_000)
    /// With Redis, how long a session without a request, a stream or work in flight stays in memory before it
    /// hibernates (lives on in Redis only) (`hibernateAfterSeconds`); zero: never.
    public var hibernateAfter = Duration.seconds(60)

    // Authentication, limits and abuse (API.md). Authentication is off unless a key source is set.

    /// The HS256 secret's file (`authHs256SecretFile`): its bytes, trailing white space trimmed, at least 32.
    public var authHS256SecretFile: String?
    /// A JWKS file with RS256, ES256 or EdDSA public keys (`authJwksFile`).
    public var authJWKSFile: String?
    /// The `iss` every token must carry (`authIssuer`).
    public var authIssuer: String?
    /// The `aud` every token must carry (`authAudience`).
    public var authAudience: String?
    /// Sessions one token subject may hold at once (`maxSessionsPerSubject`).
    public var maxSessionsPerSubject = 20
    /// Open event streams per session (`maxStreamsPerSession`); one more is `429 too_many_streams`.
    public var maxStreamsPerSession = 8
    /// The per-session bucket of upstream loads that commands start (`upstreamCallsPerMinute`).
    public var upstreamCallsPerMinute = 120
    /// The bytes of idempotency answers a session keeps (`idempotencyBytesPerSession`).
    public var idempotencyBytesPerSession = 64 * 1024
    /// Origins besides the server's own whose pages may `POST` (`allowedOrigins`, comma-separated).
    public var allowedOrigins: [String] = []
    /// The port that alone serves `/metrics` (`metricsPort`; 0 picks a free one); nil serves it on the public port.
    public var metricsPort: Int?

    /// The built-in defaults.
    public init() {}

    /// Whether the embedded fake upstream is needed (some upstream has no URL).
    public var needsFakeUpstream: Bool {
        productsURL == nil || (flickrURL == nil && flickrAPIKey == nil)
    }
}

/// A setting that could not be applied; the message names the source and the key.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String

    /// An error with this message.
    public init(description: String) {
        self.description = description
    }
}

extension VMHostConfiguration {
    /// Builds the configuration from its four layers.
    /// - Parameters:
    ///   - file: the config file's contents (JSON object with the keys of ``settings``), if any.
    ///   - fileName: the file's name, for error messages.
    ///   - environment: the process environment.
    ///   - flags: command-line values by config key (only the flags given).
    /// - Throws: ``ConfigurationError`` for an unknown key in the file or a malformed value anywhere.
    public static func load(
        file: [UInt8]?, fileName: String = "config file", environment: [String: String], flags: [String: String]
    ) throws(ConfigurationError) -> VMHostConfiguration {
        var configuration = VMHostConfiguration()
        if let file {
            let json: JSONValue
            do {
                json = try JSONParser.parse(file)
            } catch {
                throw ConfigurationError(description: "\(fileName): not valid JSON: \(error)")
            }
            guard let object = json.objectValue else {
                throw ConfigurationError(description: "\(fileName): must be a JSON object")
            }
            for (key, value) in object {
                guard settings.contains(where: { $0.key == key }) else {
                    throw ConfigurationError(description: "\(fileName): unknown setting '\(key)'")
                }
                if value.isNull { continue }
                guard let text = value.stringValue ?? value.intValue.map(String.init) else {
                    throw ConfigurationError(description: "\(fileName): '\(key)' must be a string or an integer")
                }
                try configuration.apply(key: key, value: text, source: fileName)
            }
        }
        for setting in settings {
            if let value = environment[setting.environment], !value.isEmpty {
                try configuration.apply(key: setting.key, value: value, source: "environment \(setting.environment)")
            }
        }
        for (key, value) in flags.sorted(by: { $0.key < $1.key }) {
            try configuration.apply(key: key, value: value, source: "flag for \(key)")
        }
        try configuration.validateAuthentication()
        return configuration
    }

    /// Authentication takes one key source and both `authIssuer` and `authAudience`; those without a key source are
    /// a mistake, not a silent "off". The key file itself is read when the application starts.
    func validateAuthentication() throws(ConfigurationError) {
        if authHS256SecretFile != nil, authJWKSFile != nil {
            throw ConfigurationError(
                description: "authentication: set authHs256SecretFile or authJwksFile, not both")
        }
        let enabled = authHS256SecretFile != nil || authJWKSFile != nil
        if enabled, authIssuer == nil || authAudience == nil {
            throw ConfigurationError(
                description: "authentication: authIssuer and authAudience are required with a key file")
        }
        if !enabled, authIssuer != nil || authAudience != nil {
            throw ConfigurationError(
                description: "authentication: authIssuer and authAudience need authHs256SecretFile or authJwksFile")
        }
    }

    private mutating func apply(key: String, value: String, source: String) throws(ConfigurationError) {
        guard let setting = Self.settings.first(where: { $0.key == key }) else {
            throw ConfigurationError(description: "\(source): unknown setting '\(key)'")
        }
        do {
            try setting.apply(&self, value)
        } catch {
            throw ConfigurationError(description: "\(source): '\(key)' \(error.requirement)")
        }
    }
}
