import Redis
import Testing

@Suite("RedisConfiguration from redis:// URLs")
struct RedisConfigurationTests {
    @Test func parsesHostPortAndDatabase() throws {
        let configuration = try RedisConfiguration(url: "redis://10.0.0.5:6380/7")
        #expect(configuration.host == "10.0.0.5")
        #expect(configuration.port == 6380)
        #expect(configuration.database == 7)
        #expect(configuration.commandTimeout == RedisConfiguration().commandTimeout)
    }

    @Test func defaultsPortAndDatabase() throws {
        for url in ["redis://127.0.0.1", "redis://127.0.0.1/", "REDIS://localhost"] {
            let configuration = try RedisConfiguration(url: url)
            #expect(configuration.port == 6379, "\(url)")
            #expect(configuration.database == 0, "\(url)")
        }
    }

    @Test func acceptsBracketedIPv6() throws {
        let configuration = try RedisConfiguration(url: "redis://[::1]:7000/2")
        #expect(configuration.host == "::1")
        #expect(configuration.port == 7000)
        #expect(configuration.database == 2)
    }

    @Test(arguments: [
        ("http://127.0.0.1:6379", RedisConfigurationError.unsupportedScheme("http")),
        ("127.0.0.1:6379", .unsupportedScheme("127.0.0.1:6379")),
        ("rediss://127.0.0.1", .unsupportedComponent("TLS (rediss://)")),
        ("redis://", .missingHost),
        ("redis://:6379/1", .missingHost),
        ("redis://redis.internal:6379", .invalidHost("redis.internal")),
        ("redis://[::1", .invalidHost("[::1")),
        ("redis://[127.0.0.1]", .invalidHost("127.0.0.1")),
        ("redis://300.1.1.1", .invalidHost("300.1.1.1")),
        ("redis://127.0.0.1:0", .invalidPort("0")),
        ("redis://127.0.0.1:65536", .invalidPort("65536")),
        ("redis://127.0.0.1:", .invalidPort("")),
        ("redis://127.0.0.1:+80", .invalidPort("+80")),
        ("redis://127.0.0.1:6379/x", .invalidDatabase("/x")),
        ("redis://127.0.0.1:6379/-1", .invalidDatabase("/-1")),
        ("redis://127.0.0.1:6379/1/2", .invalidDatabase("/1/2")),
        ("redis://127.0.0.1:6379/99999999999", .invalidDatabase("/99999999999")),
        ("redis://user@127.0.0.1", .unsupportedComponent("a user without a password")),
        ("redis://user:@127.0.0.1", .unsupportedComponent("an empty password")),
        ("redis://user:se%zzret@127.0.0.1", .unsupportedComponent("a bad percent escape in its credentials")),
        ("redis://user:secret@db.example", .invalidHost("db.example")),
        ("redis://127.0.0.1/0?timeout=1", .unsupportedComponent("a query string")),
        ("redis://127.0.0.1/0#x", .unsupportedComponent("a fragment")),
    ])
    func refusesBadURLs(url: String, expected: RedisConfigurationError) {
        #expect(throws: expected) { try RedisConfiguration(url: url) }
    }

    @Test func credentialsAreParsedAndNeverShown() throws {
        let acl = try RedisConfiguration(url: "redis://app:s3cr%40t:x@127.0.0.1:6380/2")
        #expect(acl.username == "app" && acl.password == "s3cr@t:x")
        #expect(acl.host == "127.0.0.1" && acl.port == 6380 && acl.database == 2)
        #expect(acl.description == "redis://app:***@127.0.0.1:6380/2")
        let plain = try RedisConfiguration(url: "redis://:hunter2@localhost")
        #expect(plain.username == nil && plain.password == "hunter2" && plain.port == 6379)
        #expect(!"\(plain)".contains("hunter2"))
        // A bad URL's error never quotes its password.
        let error = #expect(throws: RedisConfigurationError.self) {
            try RedisConfiguration(url: "redis://:hunter2@db.example:99999")
        }
        #expect(error.map { !"\($0)".contains("hunter2") } == true)
        #expect(try RedisConfiguration(url: "redis://127.0.0.1").password == nil)
    }

    @Test func errorsSayWhatIsWrong() {
        #expect(RedisConfigurationError.invalidPort("0").description.contains("1 to 65535"))
        #expect(RedisConfigurationError.invalidHost("db").description.contains("IP address"))
    }
}
