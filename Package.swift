// swift-tools-version:6.0
import PackageDescription

/// How the release server is linked (docs/performance.md, "Code layout"): with lld, so that
/// - the functions serving runs (`config/hot-functions.order`, written by `scripts/generate-link-order` from a
///   profile of the server under load) come first and together, instead of spread over 6 MB of code: fewer
///   pages of code resident, and fewer pages (TLB entries) a request runs through;
/// - relative relocations are packed (`DT_RELR`, glibc 2.36): 0.7 MB fewer pages the loader reads at start.
/// A function missing from the list (new or renamed since it was written) only lands after the listed ones.
let hotCodeLayout = [
    "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
    "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/config/hot-functions.order",
    "-Xlinker", "--no-warn-symbol-ordering",
]

/// Which of the release server's symbols its dynamic symbol table lists: only the ones libraries loaded with it
/// look up there (docs/performance.md, tenth stop). `-static-stdlib` links with `--export-dynamic`, which
/// listed every public symbol of vmhost's modules and their packages (~4,300): 380 KB of symbol table and names,
/// resident because the loader searches the executable first for every symbol a library binds. The ones that
/// stay: those a library the link sees refers to (the functions `CLibeventOverrides` defines again, jemalloc's
/// `malloc_conf`), and GnuTLS's `_gnutls_global_init_skip` (`CLibraryOptions`), which the link cannot see:
/// GnuTLS is a dependency of libcurl's dependencies.
let dynamicSymbols = [
    "-Xlinker", "--no-export-dynamic", "-Xlinker", "--export-dynamic-symbol=_gnutls_global_init_skip",
]

/// vmhost: server-held view models over HTTP commands and Server-Sent Events.
///
/// One target per concept; the folder tree under `Sources/` is the architecture (see README.md).
let package = Package(
    name: "vmhost",
    // Apple platforms build the client (VMHostClient uses Duration and Clock); Linux ignores this.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .executable(name: "vmhost", targets: ["vmhost"]),
        .library(name: "VMHost", targets: ["VMHost"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        // C libraries.
        .systemLibrary(name: "CLibevent", pkgConfig: "libevent", providers: [.apt(["libevent-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        // NB: no pkgConfig for hiredis: its .pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses with a warning;
        // the headers are in /usr/include/hiredis and the module map links libhiredis.
        .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),
        .target(name: "CHiredisShims", dependencies: ["CHiredis", "CLibevent"]),
        .target(name: "CLibeventShims", dependencies: ["CLibevent"]),
        // The functions libevent (and glibc, for libevent) call that the executable defines again, in one place:
        // four speed tricks and the JSON form of evhttp's own errors, each falling back to libevent's own function
        // on any libevent but the one they were written for (docs/performance.md, docs/reliability.md).
        .target(name: "CLibeventOverrides", dependencies: ["CLibevent", "CLibeventShims"]),
        // OpenSSL's libcrypto behind typed functions: digests (session ids in Redis, logs and the proxy) and JWT
        // signature checks. libcrypto is loaded anyway, through libcurl's TLS.
        .target(name: "CCrypto", linkerSettings: [.linkedLibrary("crypto")]),
        // Key generation and signing by libcrypto, for the tests that mint tokens (the server only verifies).
        .target(name: "CCryptoTesting", linkerSettings: [.linkedLibrary("crypto")]),
        // What the executable gives C libraries in its process: jemalloc's options, GnuTLS's initialization skipped.
        .target(name: "CLibraryOptions"),

        // Pure Swift building blocks.
        // Growable byte buffers for text built from many small pieces (snapshots, Redis calls).
        .target(name: "Bytes"),
        .target(name: "JSON", dependencies: ["Bytes"]),
        .target(name: "JSONPatch", dependencies: ["Bytes", "JSON"]),
        // JWT checks: keys (HS256 secret, JWKS), claims, and the cache of accepted tokens; signatures by libcrypto.
        .target(name: "Auth", dependencies: ["CCrypto", "JSON"]),

        // Runtime.
        .target(name: "EventLoop", dependencies: ["CLibevent"]),
        // SSE framing, gzip segments, the sink a stream writes to and the slow-reader state machine: what
        // state channels (Sessions) and the HTTP server (HTTPServer) share without knowing each other.
        .target(name: "EventStreams", dependencies: ["CZlib", "EventLoop", "JSON"]),
        .target(
            name: "HTTPServer",
            dependencies: [
                "CLibevent", "CLibeventShims", "CLibeventOverrides", "EventLoop", "EventStreams", "JSON",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "HTTPClient",
            dependencies: ["CCurl", "CCurlShims", "CLibevent", "EventLoop"]
        ),
        .target(name: "Redis", dependencies: ["Bytes", "CHiredis", "CHiredisShims", "EventLoop"]),
        .target(
            name: "Journal",
            dependencies: [
                "Bytes", "CZlib", "EventLoop", "JSON", "JSONPatch", "Redis", "Sessions", "ViewModels",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Domain.
        // The upstream service interfaces, their values and the display formatting of cells: what view models
        // need, without libcurl.
        .target(name: "Services", dependencies: ["EventLoop", "JSON"]),
        // The live services over curl.
        .target(name: "Upstreams", dependencies: ["EventLoop", "HTTPClient", "JSON", "Services"]),
        .target(name: "ViewModels", dependencies: ["EventLoop", "JSON", "JSONPatch", "Services"]),
        .target(
            name: "Sessions", dependencies: ["CCrypto", "EventLoop", "EventStreams", "JSON", "JSONPatch", "ViewModels"]),
        .target(name: "FakeUpstream", dependencies: ["EventLoop", "HTTPServer", "JSON"]),

        // Wiring and entry point.
        .target(
            name: "VMHost",
            dependencies: [
                "Auth", "EventLoop", "HTTPServer", "HTTPClient", "JSON", "Services", "Upstreams", "ViewModels",
                "Sessions", "FakeUpstream", "Journal", "Redis",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            // The OpenAPI document and the web client as real files; scripts/generate-resources embeds them
            // in EmbeddedResources.swift.
            exclude: ["Resources"]
        ),
        // NB: release builds allocate with jemalloc: a Swift server allocates far more than C, and glibc's malloc
        // and free were ~10% of the instructions per command (callgrind, docs/performance.md); its options are
        // CLibraryOptions' malloc_conf. Debug and sanitizer builds keep the system allocator, which the
        // sanitizers replace.
        .executableTarget(
            name: "vmhost",
            dependencies: ["CLibraryOptions", "VMHost", .product(name: "Logging", package: "swift-log")],
            linkerSettings: [
                .linkedLibrary("jemalloc", .when(platforms: [.linux], configuration: .release)),
                .unsafeFlags(hotCodeLayout + dynamicSymbols, .when(platforms: [.linux], configuration: .release)),
            ]
        ),

        // Fuzzing (scripts/fuzz): request targets, routing, JSON and every command body. A plain build is a
        // replayer of inputs given on the command line; built with `-sanitize=fuzzer -D VMHOST_FUZZ` it is a
        // libFuzzer binary (CFuzzerDriver only declares libFuzzer's driver entry point).
        .target(name: "CFuzzerDriver"),
        .executableTarget(
            name: "VMHostFuzz",
            dependencies: [
                "CFuzzerDriver", "EventLoop", "HTTPServer", "JSON", "Sessions", "VMHost", "ViewModels",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // Test support: a small socket HTTP/SSE client that is not ours-on-the-server-side (live mode), the
        // in-process client of HTTPServer's request handling (router mode), and a gzip inflater (CZlibTesting: the
        // server only compresses).
        .target(name: "CZlibTesting", dependencies: ["CZlib"]),
        .target(
            name: "VMHostTesting",
            dependencies: ["CZlib", "CZlibTesting", "EventLoop", "EventStreams", "HTTPServer", "JSON", "JSONPatch"]
        ),

        .testTarget(name: "BytesTests", dependencies: ["Bytes"]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "VMHostTesting"]),
        .testTarget(name: "JSONPatchTests", dependencies: ["JSON", "JSONPatch", "VMHostTesting"]),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: [
                "HTTPServer", "CLibevent", "CLibeventShims", "CLibeventOverrides", "EventLoop", "JSON", "VMHostTesting",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer", "EventLoop", "VMHostTesting"]),
        .testTarget(
            name: "UpstreamsTests",
            dependencies: ["Upstreams", "Services", "FakeUpstream", "HTTPClient", "EventLoop", "JSON", "VMHostTesting"]
        ),
        // Generated/: test data written by scripts/generate-html-entities, read by HTMLEntitiesTests.
        .testTarget(name: "ServicesTests", dependencies: ["Services"], exclude: ["Generated"]),
        .testTarget(name: "EventLoopTests", dependencies: ["EventLoop", "VMHostTesting"]),
        .testTarget(name: "EventStreamsTests", dependencies: ["EventStreams", "EventLoop", "JSON", "VMHostTesting"]),
        .testTarget(name: "RedisTests", dependencies: ["Bytes", "Redis", "EventLoop", "VMHostTesting"]),
        .testTarget(
            name: "JournalTests", dependencies: ["Bytes", "Journal", "JSON", "Redis", "Sessions", "VMHostTesting"]),
        .testTarget(
            name: "SessionsTests",
            dependencies: [
                "Sessions", "EventStreams", "ViewModels", "Services", "EventLoop", "JSON", "JSONPatch", "VMHostTesting",
            ]
        ),
        // NB: no Upstreams (and so no HTTPClient or libcurl): view models are tested against fake services.
        .testTarget(
            name: "ViewModelTests", dependencies: ["ViewModels", "Services", "EventLoop", "JSON", "VMHostTesting"]),
        .testTarget(
            name: "VMHostTests",
            dependencies: [
                "VMHost", "FakeUpstream", "JSON", "JSONPatch", "VMHostTesting", "EventLoop", "EventStreams",
                "HTTPServer", "Sessions", "ViewModels", "Auth", "CCryptoTesting", "Journal", "Redis",
            ]
        ),
    ]
)

/// The Swift client (`VMHostClient`, ../shared/CLIENT.md) and what only it needs: the OpenAPI runtime and its
/// transports (AsyncHTTPClient on Linux, URLSession on Apple platforms), `vmhost-search` and their tests.
/// NB: `VMHOST_SERVER_ONLY=1` leaves them out, so that the builds that test the server alone (scripts/sanitizers,
/// scripts/fuzz, scripts/leak-check) do not build SwiftNIO and AsyncHTTPClient: minutes of every CI run.
let serverOnly = Context.environment["VMHOST_SERVER_ONLY"].map { !$0.isEmpty && $0 != "0" } ?? false
if !serverOnly {
    let applePlatforms: [Platform] = [.macOS, .iOS, .tvOS, .watchOS, .visionOS, .macCatalyst]
    package.products += [
        .library(name: "VMHostClient", targets: ["VMHostClient"]),
        .executable(name: "vmhost-search", targets: ["vmhost-search"]),
    ]
    package.dependencies += [
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
    ]
    package.targets += [
        // Generated/ is written by scripts/generate-client from Sources/VMHost/Resources/openapi.json
        // (swift-openapi-generator, run outside the build: no plugin); scripts/check-generated-client checks it.
        .target(
            name: "VMHostClient",
            dependencies: [
                "JSON", "JSONPatch",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(
                    name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
                    condition: .when(platforms: [.linux])
                ),
                .product(
                    name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])
                ),
                .product(
                    name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
                    condition: .when(platforms: applePlatforms)
                ),
            ]
        ),
        // The thin terminal client of the search view model: VMHostClient's worked example.
        .executableTarget(name: "vmhost-search", dependencies: ["VMHostClient"]),
        .testTarget(
            name: "VMHostClientTests",
            dependencies: [
                "VMHostClient", "VMHost", "VMHostTesting", "EventLoop", "FakeUpstream", "JSON", "JSONPatch", "Auth",
                "CCryptoTesting", .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ]
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    // NB: release builds leave out the run-time exclusivity checks (~40 per command, 3.5% of its instructions by
    // callgrind); debug builds, which run the tests and the sanitizers, keep them, and the static checks stay.
    // Each function gets its own section, Swift's and C's, so that the link can lay out the code serving runs
    // (`hotCodeLayout`).
    let releaseFlags = ["-enforce-exclusivity=unchecked", "-Xfrontend", "-function-sections"]
    settings.append(.unsafeFlags(releaseFlags, .when(configuration: .release)))
    target.swiftSettings = settings
    let sections = CSetting.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))
    target.cSettings = (target.cSettings ?? []) + [sections]
}
