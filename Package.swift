// swift-tools-version: 6.0
import PackageDescription

// Module graph: each module imports only what is above it in this list, and stage modules
// exchange GalleryCore values and never import each other. GalleryConcurrency (semaphore,
// coalescer, concurrent map) and GalleryJSON (the hand-written JSON reader and the core records'
// readers) are two small libraries the stages share, and Metadata (XMP and IPTC readers) the one
// Feed and Imaging share; Video runs ffprobe and ffmpeg for clips; Reporting is the build's
// report and events (and their GitHub Actions form); BuildStore (SQLite, through GRDB) is the
// database a build remembers in, whose tables the stages that keep records declare. GalleryBuild is the pipeline; Preview (`serve`) and SiteStarter
// (`init` and its CI templates) are built on it. docs/architecture.md draws the graph.
/// Every module is built with the language's coming defaults (as Hummingbird is): `any` written
/// where an existential is meant, members visible only from modules a file imports, and imports
/// internal unless marked `package`/`public`.
let upcoming: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "gallerygen",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "gallerygen", targets: ["gallerygen"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .target(name: "GalleryCore", dependencies: ["GalleryConcurrency"]),
        .target(name: "GalleryConcurrency"),
        .target(name: "GalleryJSON", dependencies: ["GalleryCore"]),
        .target(name: "Reporting"),
        .target(
            name: "Metadata", dependencies: ["GalleryCore", .product(name: "Crypto", package: "swift-crypto")]),
        .target(
            name: "Feed",
            dependencies: ["GalleryCore", "GalleryJSON", "Metadata", .product(name: "Yams", package: "Yams")]),
        .target(
            name: "BuildStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]),
        .target(
            name: "Loading",
            dependencies: [
                "BuildStore", "GalleryCore", "GalleryConcurrency", "GalleryJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(
            name: "CCmarkGFM",
            pkgConfig: "libcmark-gfm",
            providers: [.apt(["libcmark-gfm-dev", "libcmark-gfm-extensions-dev"])]
        ),
        .target(
            name: "Imaging",
            dependencies: ["GalleryCore", "CVips", "Metadata", .product(name: "NIOPosix", package: "swift-nio")]
        ),
        .target(name: "Video", dependencies: ["GalleryCore"]),
        .target(name: "Markdown", dependencies: ["CCmarkGFM"]),
        .target(
            name: "Rendering",
            dependencies: [
                "GalleryCore", "GalleryConcurrency", .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            resources: [.copy("Theme")]
        ),
        .target(
            name: "GalleryBuild",
            dependencies: [
                "BuildStore", "GalleryCore", "GalleryConcurrency", "GalleryJSON", "Feed", "Loading", "Imaging",
                "Markdown", "Metadata", "Rendering", "Reporting", "Video",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Yams", package: "Yams"),
            ]
        ),
        .target(
            name: "Preview",
            dependencies: [
                "GalleryCore", "GalleryBuild", "Reporting",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "SiteStarter",
            dependencies: [
                "Feed", "GalleryBuild", "GalleryCore", "Loading",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "gallerygen",
            dependencies: [
                "GalleryBuild", "GalleryCore", "Loading", "Preview", "Reporting", "SiteStarter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        .target(
            name: "TestSupport",
            // Test images are made with libvips directly: the one module besides Imaging that imports CVips.
            dependencies: [
                "CVips",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(name: "GalleryCoreTests", dependencies: ["GalleryCore", "TestSupport"]),
        .testTarget(name: "GalleryConcurrencyTests", dependencies: ["GalleryConcurrency", "TestSupport"]),
        .testTarget(name: "GalleryJSONTests", dependencies: ["GalleryJSON", "GalleryCore"]),
        .testTarget(
            name: "FeedTests", dependencies: ["Feed", "GalleryCore"],
            exclude: ["Fixtures"]  // read from the source tree by path
        ),
        .testTarget(
            name: "MetadataTests",
            dependencies: ["Metadata", "GalleryCore", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(
            name: "LoadingTests",
            dependencies: [
                "BuildStore", "Loading", "GalleryConcurrency", "GalleryCore", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(name: "ImagingTests", dependencies: ["Imaging", "GalleryCore", "TestSupport"]),
        .testTarget(name: "MarkdownTests", dependencies: ["Markdown"]),
        .testTarget(
            name: "VideoTests", dependencies: ["Video", "GalleryCore", "TestSupport"],
            exclude: ["Fixtures"]  // read from the source tree by path
        ),
        .testTarget(
            name: "RenderingTests",
            dependencies: [
                "Rendering", "GalleryCore", "TestSupport",
            ],
            exclude: ["Golden"]  // read from the source tree by path, re-recorded in place
        ),
        .testTarget(
            name: "GalleryBuildTests",
            dependencies: [
                "BuildStore", "Feed", "GalleryBuild", "GalleryCore", "GalleryJSON", "Imaging", "Loading", "Rendering",
                "Reporting", "TestSupport", "Video", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "GalleryBuild", "GalleryCore", "Loading", "SiteStarter", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            exclude: ["Fixtures"]  // read from the source tree by path
        ),
        .testTarget(
            name: "PreviewTests",
            dependencies: [
                "Preview", "GalleryBuild", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + upcoming
}
