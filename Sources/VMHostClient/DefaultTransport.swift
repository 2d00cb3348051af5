import Foundation
import OpenAPIRuntime

#if canImport(OpenAPIAsyncHTTPClient)
import AsyncHTTPClient
import OpenAPIAsyncHTTPClient

/// The transport of `VMHostClient(baseURL:)`: AsyncHTTPClient (Linux).
enum DefaultTransport {
    /// One HTTP client for the process, never shut down (like `HTTPClient.shared`), with what event streams need:
    /// gzip inflated (off by default in AsyncHTTPClient), and a read timeout that a stream's keep-alive comment
    /// (every 15 s) always beats, so that a connection that went silent is dropped and resumed.
    static let httpClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .enabled(limit: .none)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(45))
        // NB: every session's event stream holds a connection for as long as it is iterated; AsyncHTTPClient's default
        // of 8 connections per host would queue the commands (and further streams) of a process with more sessions
        // behind streams that never end.
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1024)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func make() -> any ClientTransport {
        // NB: the timeout is until the answer's head: a stream's body runs as long as it runs.
        AsyncHTTPClientTransport(configuration: .init(client: httpClient, timeout: .seconds(45)))
    }
}
#elseif canImport(OpenAPIURLSession)
import OpenAPIURLSession

/// The transport of `VMHostClient(baseURL:)`: URLSession (Apple platforms), which inflates gzip itself.
enum DefaultTransport {
    static func make() -> any ClientTransport {
        URLSessionTransport()
    }
}
#endif
