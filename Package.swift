// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Tuner",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18)],
    products: [
        .executable(name: "tuner", targets: ["tuner"]),
        .library(name: "MediaFormats", targets: ["MediaFormats"]),
        .library(name: "Fetching", targets: ["Fetching"]),
        .library(name: "MediaCache", targets: ["MediaCache"]),
        .library(name: "Catalog", targets: ["Catalog"]),
        .library(name: "Transfers", targets: ["Transfers"]),
        .library(name: "Tus", targets: ["Tus"]),
        .library(name: "TusServer", targets: ["TusServer"]),
        .library(name: "TunerStorage", targets: ["TunerStorage"]),
        .library(name: "Routing", targets: ["Routing"]),
        .library(name: "TunerAPI", targets: ["TunerAPI"]),
        .library(name: "ServerLink", targets: ["ServerLink"]),
        .library(name: "Outputs", targets: ["Outputs"]),
        .library(name: "Streaming", targets: ["Streaming"]),
        .library(name: "LiveTV", targets: ["LiveTV"]),
        .library(name: "TunerApp", targets: ["TunerApp"]),
        .library(name: "TunerServer", targets: ["TunerServer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // HTTP/1 parts as swift-http-types values in a channel pipeline (the stream fast path).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        // Counters and timers (swift-metrics), served at /metrics in Prometheus' text format.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // The live events' WebSocket (/api/v1/events).
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // The events WebSocket's client side (ServerLink), without Hummingbird.
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        // PostgreSQL's wire protocol and a connection pool: the state database for several nodes.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(name: "MediaFormats"),
        .target(name: "CAllocatorTuning"),
        .target(name: "Routing"),
        // The tus protocol's checksums and metadata, shared by the client (Transfers) and the server store.
        .target(name: "Tus", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The server side of tus: uploads received by `tuner serve`, kept on disk.
        .target(
            name: "TusServer",
            dependencies: [
                "Tus",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The API's endpoints and bodies, shared by the server and its clients.
        .target(name: "TunerAPI"),
        .target(
            name: "ServerLink",
            dependencies: [
                "TunerAPI",
                "MediaFormats",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // zlib, for inflating gzip guides and playlists member by member (Catalog.GzipFile).
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "TunerStorage",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                // PostgreSQL, the second home of the state (for several nodes): raw SQL over its pool.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Its pool's errors (a tripped circuit breaker means the server is gone).
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The fetch policy's gate every outgoing connection passes, and the redirects followed by hand.
        .target(
            name: "Fetching",
            dependencies: [
                "MediaFormats",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "MediaCache",
            dependencies: [
                "MediaFormats",
                "Fetching",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "Catalog",
            dependencies: [
                "MediaFormats",
                "Fetching",
                "TunerStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The bulk import binds values with SQLite's C API directly.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                // The shared store (PostgresCatalogStore): raw SQL, COPY for imports.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "CZlib",
                // Import durations, as a timer.
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .target(
            name: "Transfers",
            dependencies: [
                "MediaFormats",
                "Fetching",
                "Tus",
                "TunerStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The queue on PostgreSQL (PostgresTransferStore).
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Output profiles: the channels handed to players as M3U, XMLTV and an HDHomeRun tuner.
        .target(
            name: "Outputs",
            dependencies: [
                "Catalog",
                "MediaFormats",
                "TunerStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                // Profiles, numbers and logins on PostgreSQL too.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                // PBKDF2 for the Xtream logins' passwords.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The stream engine: proxy serving through the cache, signed stream links, HLS rewriting.
        .target(
            name: "Streaming",
            dependencies: [
                "MediaCache",
                "MediaFormats",
                "Fetching",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // MediaCache's answers carry NIO's HTTP/1 headers: built in one file (issue 27).
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The live engine: sessions shared by viewers, rings, packetizer, upstreams and ffmpeg.
        .target(
            name: "LiveTV",
            dependencies: [
                "Streaming",
                "Catalog",
                "Fetching",
                "MediaFormats",
                "TunerAPI",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "TunerApp",
            dependencies: [
                "Streaming",
                "LiveTV",
                "Outputs",
                "TunerAPI",
                "TusServer",
                "Tus",
                "TunerStorage",
                "MediaCache",
                "Catalog",
                "Transfers",
                "MediaFormats",
                "Fetching",
                // The command journal's table (idempotency keys) in the shared database.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Keys, sessions and the journal on PostgreSQL too.
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Flags, environment and the configuration file, read once into TunerConfiguration.
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Backups copy and hash files on NIO's thread pool, off the cooperative one.
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "TunerServer",
            dependencies: [
                "Outputs",
                // The web app's paths.
                "Routing",
                // gzip for the streamed XMLTV guide.
                "CZlib",
                "TusServer",
                "Tus",
                "TunerApp",
                "Streaming",
                "LiveTV",
                "TunerAPI",
                "MediaFormats",
                "MediaCache",
                "Catalog",
                "Transfers",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // The main port's own server quiesces its connections at shutdown.
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                // The web app's asset names carry a SHA-256 of their content.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The OpenAPI document, hand-kept, compiled into the binary and served at /api/v1/openapi.json;
            // the web app's style sheet and ES modules, compiled in and served under /assets/.
            resources: [
                .embedInCode("Resources/openapi.json"),
                .embedInCode("Resources/web/app.css"),
                .embedInCode("Resources/web/app.js"),
                .embedInCode("Resources/web/events.js"),
                .embedInCode("Resources/web/command.js"),
                .embedInCode("Resources/web/paged.js"),
                .embedInCode("Resources/web/vlist.js"),
                .embedInCode("Resources/web/tv.js"),
                .embedInCode("Resources/web/player.js"),
                .embedInCode("Resources/web/recordings.js"),
                .embedInCode("Resources/web/guide.js"),
                .embedInCode("Resources/web/downloads.js"),
                .embedInCode("Resources/web/sources.js"),
                .embedInCode("Resources/web/tables.js"),
                .embedInCode("Resources/web/logins.js"),
                .embedInCode("Resources/web/lineup.js"),
                .embedInCode("Resources/web/signin.js"),
                .embedInCode("Resources/web/account.js"),
                .embedInCode("Resources/web/cache.js"),
                .embedInCode("Resources/web/vgrid.js"),
                .embedInCode("Resources/web/resume.js"),
                .embedInCode("Resources/web/library.js"),
                .embedInCode("Resources/web/details.js"),
                .embedInCode("Resources/web/vod.js"),
                .embedInCode("Resources/web/tus.js"),
                .embedInCode("Resources/web/uploads.js"),
            ]
        ),
        .executableTarget(
            name: "tuner",
            dependencies: [
                "CAllocatorTuning",
                "Routing",
                "TunerAPI",
                "ServerLink",
                "TunerServer",
                "TunerApp",
                "Streaming",
                "MediaCache",
                "Catalog",
                "Transfers",
                "MediaFormats",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // The fake IPTV provider scripts/bench-live runs (endless real-time MPEG-TS channels).
        .executableTarget(name: "tuner-live-origin", dependencies: ["TunerTesting"]),
        .target(
            name: "TunerTesting",
            dependencies: [
                "MediaFormats",
                // A PostgreSQL database per test, on the server TUNER_TEST_POSTGRES names.
                "TunerStorage",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "TunerStorageTests",
            dependencies: [
                "TunerStorage", "TunerTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "CatalogTests",
            dependencies: [
                "Catalog", "TunerTesting", "MediaFormats", "TunerStorage",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // Read through #filePath, so not bundled as resources.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "TransfersTests",
            dependencies: [
                "Transfers", "Tus", "TusServer", "TunerTesting", "MediaFormats", "Catalog", "TunerStorage",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "MediaFormatsTests",
            dependencies: ["MediaFormats", "TunerTesting"]
        ),
        .testTarget(
            name: "FetchingTests",
            dependencies: [
                "Fetching", "MediaFormats", "TunerTesting",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "MediaCacheTests",
            dependencies: [
                "MediaCache", "MediaFormats", "TunerTesting", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TunerServerTests",
            dependencies: [
                "TunerServer", "TunerApp", "Streaming", "LiveTV", "MediaCache", "Transfers", "TunerTesting", "TunerAPI",
                "ServerLink", "Tus",
                "TusServer", "TunerStorage",
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        .testTarget(
            name: "RoutingTests",
            dependencies: ["Routing"]
        ),
        .testTarget(
            name: "OutputsTests",
            dependencies: [
                "Outputs", "Catalog", "MediaFormats", "TunerStorage", "TunerTesting",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "TunerAppTests",
            dependencies: [
                "TunerApp", "Streaming", "LiveTV", "TunerStorage", "Catalog", "Transfers", "MediaFormats",
                "TunerTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "tuner", "TunerTesting", "MediaFormats", "TunerAPI", "TunerStorage",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ]
)
