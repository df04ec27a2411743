import AsyncHTTPClient
import Foundation
import GalleryCore
import Synchronization
import TestSupport
import Testing

@testable import Loading

/// A loader against a test server, with its own cache folder and client.
final class LoaderFixture: Sendable {
    let folder: TemporaryDirectory
    let server: TestHTTPServer
    let client = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow)
    )
    private let openCache: Mutex<DiskCache>
    var cache: DiskCache { openCache.withLock { $0 } }

    init(_ handler: @escaping TestHTTPServer.Handler) async throws {
        folder = try TemporaryDirectory("loader")
        server = try await TestHTTPServer(handler: handler)
        openCache = Mutex(try DiskCache.open(directory: folder.file("cache")))
    }

    func loader(_ configure: (inout HTTPLoader.Configuration) -> Void = { _ in }) -> HTTPLoader {
        var configuration = HTTPLoader.Configuration(retry: RetryPolicy(baseDelay: .milliseconds(5)))
        configure(&configuration)
        return HTTPLoader(configuration: configuration, client: client, cache: cache)
    }

    /// Persists the cache and opens it again, as the next build would.
    func reopenCache() async throws {
        try await cache.persist()
        cache.close()
        let reopened = try DiskCache.open(directory: folder.file("cache"))
        openCache.withLock { $0 = reopened }
    }

    func url(_ path: String) -> CanonicalURL { CanonicalURL(string: server.baseURL + path)! }

    func close() async throws {
        try? await client.shutdown()
        try await server.shutdown()
    }

    deinit {
        // A test that failed part way did not reach close(): AsyncHTTPClient traps on a client
        // released without a shutdown.
        try? client.syncShutdown()
    }

    var leftovers: [String] {
        folder.allFiles(under: "cache/v1/tmp")
            + folder.allFiles(under: "cache/v1/blobs").filter { $0.hasPrefix(".tmp-") }
    }
}

@Suite struct HTTPLoaderTests {
    @Test func fiftyEntriesForOneURLMakeOneRequest() async throws {
        let fixture = try await LoaderFixture { _ in .photo(1) }
        let loader = ImageLoader(configuration: .init(), remote: fixture.loader())
        let spellings = [
            "\(fixture.server.baseURL)/a.jpg", "HTTP://127.0.0.1:\(fixture.server.port)/a.jpg",
            "\(fixture.server.baseURL)/a.jpg#detail",
        ]
        let hashes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<50 {
                let url = CanonicalURL(string: spellings[index % spellings.count])!
                group.addTask { try await loader.original(for: url).sha256 }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(hashes.count == 1)
        #expect(fixture.server.count("/a.jpg") == 1)
        // Asked again later in the same build: still one request.
        _ = try await loader.original(for: fixture.url("/a.jpg"))
        #expect(fixture.server.requests.count == 1)

        _ = try await loader.original(for: fixture.url("/q.jpg?a=1&b=2"))
        _ = try await loader.original(for: fixture.url("/q.jpg?b=2&a=1"))
        #expect(fixture.server.count("/q.jpg") == 2, "a different query order is a different URL")
        try await fixture.close()
    }

    @Test func neverMoreThanTheLimitInFlight() async throws {
        let fixture = try await LoaderFixture { request in
            var response = TestHTTPServer.Response.photo(Int(request.path.dropFirst(3).prefix { $0 != "." }) ?? 0)
            response.delay = .milliseconds(15)
            return response
        }
        let loader = fixture.loader {
            $0.concurrency = 4
            $0.perHost = 6
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask { _ = try await loader.original(for: fixture.url("/p/\(index % 7).jpg?n=\(index)")) }
            }
            try await group.waitForAll()
        }
        #expect(fixture.server.requests.count == 200)
        #expect(fixture.server.maxConcurrent <= 4)
        #expect(fixture.server.maxConcurrent >= 2, "the limit is used, not serialised")
        try await fixture.close()
    }

    @Test func revalidatesWithTheStoredValidatorsVerbatim() async throws {
        let weak = "W/\"abc-123\""
        let fixture = try await LoaderFixture { .revalidating($0, photo: 1, etag: weak) }
        let first = try await fixture.loader().original(for: fixture.url("/a.jpg"))
        #expect(first.origin == .downloaded && first.validators.etag == weak)
        try await fixture.reopenCache()

        let second = try await fixture.loader().original(for: fixture.url("/a.jpg"))

        #expect(second.origin == .revalidated)
        #expect(second.sha256 == first.sha256)
        let request = try #require(fixture.server.requests.last)
        #expect(request.headers["if-none-match"] == weak, "the ETag byte for byte, W/ included")
        #expect(request.headers["if-modified-since"] == "Sat, 01 Nov 2025 10:00:00 GMT")
        try await fixture.close()
    }

    @Test func lastModifiedAloneIsEnough() async throws {
        let stamp = "Tue, 15 Nov 1994 08:12:31 GMT"
        let fixture = try await LoaderFixture { request in
            if request.headers["if-modified-since"] == stamp { return .init(status: 304) }
            return .init(headers: [("Content-Type", "image/jpeg"), ("Last-Modified", stamp)], body: TestPhotos.jpeg(2))
        }
        _ = try await fixture.loader().original(for: fixture.url("/lm.jpg"))
        #expect(try await fixture.loader().original(for: fixture.url("/lm.jpg")).origin == .revalidated)
        #expect(fixture.server.requests.map(\.isConditional) == [false, true])
        try await fixture.close()
    }

    @Test(arguments: [
        ("max-age=3600", 0, Original.Origin.fresh),
        ("public, max-age=31536000, immutable", 0, .fresh),
        ("max-age=0", 1, .revalidated),
        ("no-cache, max-age=3600", 1, .revalidated),
        ("must-revalidate", 1, .revalidated),
    ])
    func cacheControlDecidesWhetherToAsk(cacheControl: String, requests: Int, origin: Original.Origin) async throws {
        let fixture = try await LoaderFixture { request in
            if request.isConditional { return .init(status: 304, headers: [("Cache-Control", cacheControl)]) }
            return .photo(3, extraHeaders: [("Cache-Control", cacheControl)])
        }
        _ = try await fixture.loader().original(for: fixture.url("/c.jpg"))
        fixture.server.resetCounts()

        let second = try await fixture.loader().original(for: fixture.url("/c.jpg"))

        #expect(second.origin == origin)
        #expect(fixture.server.requests.count == requests)
        try await fixture.close()
    }

    @Test func refreshRevalidatesEvenFreshEntriesAndExpiresCounts() async throws {
        let future = HTTPDate.format(Date().addingTimeInterval(3600))
        let fixture = try await LoaderFixture { request in
            if request.isConditional { return .init(status: 304) }
            return .photo(4, extraHeaders: [("Expires", future), ("Date", HTTPDate.format(Date()))])
        }
        _ = try await fixture.loader().original(for: fixture.url("/e.jpg"))
        #expect(try await fixture.loader().original(for: fixture.url("/e.jpg")).origin == .fresh)
        #expect(
            try await fixture.loader { $0.refresh = true }.original(for: fixture.url("/e.jpg")).origin == .revalidated)
        #expect(fixture.server.requests.count == 2)
        try await fixture.close()
    }

    @Test func noStoreIsNeverKept() async throws {
        let fixture = try await LoaderFixture { _ in .photo(5, extraHeaders: [("Cache-Control", "no-store")]) }
        let first = try await fixture.loader().original(for: fixture.url("/n.jpg"))
        #expect(first.origin == .downloaded)
        #expect(fixture.cache.record(for: fixture.url("/n.jpg").description) == nil)
        #expect(fixture.folder.allFiles(under: "cache/v1/blobs").isEmpty)
        try await fixture.reopenCache()
        #expect(fixture.leftovers.isEmpty, "its temporary file is gone at the next start")
        _ = try await fixture.loader().original(for: fixture.url("/n.jpg"))
        #expect(fixture.server.requests.map(\.isConditional) == [false, false])
        try await fixture.close()
    }

    @Test func retriesServerErrorsThenSucceeds() async throws {
        let attempts = Locked<Int>(0)
        let fixture = try await LoaderFixture { _ in
            let count = attempts.update { $0 = ($0 ?? 0) + 1 } ?? 0
            return count <= 2 ? .text(503, "busy") : .photo(6)
        }
        let original = try await fixture.loader().original(for: fixture.url("/r.jpg"))
        #expect(original.origin == .downloaded)
        #expect(fixture.server.count("/r.jpg") == 3)
        try await fixture.close()
    }

    @Test func aNotFoundIsOneRequestAndAClearError() async throws {
        let fixture = try await LoaderFixture { _ in .text(404, "nope") }
        let error = await #expect(throws: LoadingError.self) {
            try await fixture.loader().original(for: fixture.url("/missing.jpg"))
        }
        #expect(error?.status == 404)
        #expect(error?.description.contains("/missing.jpg: the server answered 404") == true)
        #expect(fixture.server.requests.count == 1)
        try await fixture.close()
    }

    @Test func honoursRetryAfter() async throws {
        let attempts = Locked<Int>(0)
        let fixture = try await LoaderFixture { _ in
            let count = attempts.update { $0 = ($0 ?? 0) + 1 } ?? 0
            return count == 1 ? .init(status: 429, headers: [("Retry-After", "1")]) : .photo(7)
        }
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await fixture.loader().original(for: fixture.url("/slow-down.jpg"))
        #expect(fixture.server.requests.count == 2)
        #expect(clock.now - start >= .milliseconds(900), "waited as asked (a lower bound, not a timing target)")
        try await fixture.close()
    }

    @Test func aTruncatedBodyFailsAndLeavesNothing() async throws {
        let fixture = try await LoaderFixture { _ in
            var response = TestHTTPServer.Response.photo(8)
            response.truncateAfter = 200
            return response
        }
        let error = await #expect(throws: LoadingError.self) {
            try await fixture.loader().original(for: fixture.url("/t.jpg"))
        }
        #expect(error?.code == .truncated)
        #expect(fixture.cache.record(for: fixture.url("/t.jpg").description) == nil)
        #expect(fixture.folder.allFiles(under: "cache/v1/blobs").isEmpty && fixture.leftovers.isEmpty)

        fixture.server.setHandler { _ in .photo(8) }
        fixture.server.resetCounts()
        #expect(try await fixture.loader().original(for: fixture.url("/t.jpg")).origin == .downloaded)
        #expect(fixture.server.requests.count == 1)
        try await fixture.close()
    }

    @Test func followsRedirectsAndCatchesLoops() async throws {
        let fixture = try await LoaderFixture { request in
            switch request.path {
            case "/old.jpg": .init(status: 301, headers: [("Location", "/older.jpg")])
            case "/older.jpg": .init(status: 302, headers: [("Location", "new.jpg")])
            case "/new.jpg": .photo(9)
            case "/ping": .init(status: 302, headers: [("Location", "/pong")])
            default: .init(status: 307, headers: [("Location", "/ping")])
            }
        }
        let original = try await fixture.loader().original(for: fixture.url("/old.jpg"))
        #expect(original.origin == .downloaded)
        let record = try #require(fixture.cache.record(for: fixture.url("/old.jpg").description))
        #expect(record.finalURL.hasSuffix("/new.jpg") && record.redirects.count == 2)

        let error = await #expect(throws: LoadingError.self) {
            try await fixture.loader().original(for: fixture.url("/ping"))
        }
        #expect(error?.code == .redirectLoop)
        #expect(error?.message.contains("/ping -> ") == true)
        try await fixture.close()
    }

    @Test func aPageIsNotAnImage() async throws {
        let fixture = try await LoaderFixture { request in
            request.path == "/html.jpg"
                ? .init(headers: [("Content-Type", "text/html")], body: Array("<html>Sign in</html>".utf8))
                : .init(
                    headers: [("Content-Type", "application/octet-stream")],
                    body: Array("<!doctype html><html>oops</html>".utf8))
        }
        let typed = await #expect(throws: LoadingError.self) {
            try await fixture.loader().original(for: fixture.url("/html.jpg"))
        }
        #expect(typed?.code == .notAnImage && typed?.message.contains("text/html") == true)
        let sniffed = await #expect(throws: LoadingError.self) {
            try await fixture.loader().original(for: fixture.url("/bin.jpg"))
        }
        #expect(sniffed?.code == .notAnImage && sniffed?.message.contains("<!doctype html>") == true)
        #expect(fixture.leftovers.isEmpty && fixture.folder.allFiles(under: "cache/v1/blobs").isEmpty)
        try await fixture.close()
    }

    @Test func theSizeCapIsEnforcedWhileStreaming() async throws {
        let fixture = try await LoaderFixture { _ in
            // No Content-Length to go by: chunked bodies are capped as they arrive.
            .photo(10)
        }
        let error = await #expect(throws: LoadingError.self) {
            try await fixture.loader { $0.maxImageBytes = 500 }.original(for: fixture.url("/big.jpg"))
        }
        #expect(error?.code == .tooLarge)
        #expect(fixture.leftovers.isEmpty)
        try await fixture.close()
    }

    @Test func aClipsBoundIsForClipsByTheirBytesWhateverTheirTypeOrName() async throws {
        let clip = Array(Data([0, 0, 0, 20]) + Data("ftypisom".utf8) + Data(repeating: 7, count: 3000))
        let fixture = try await LoaderFixture { request in
            switch request.path {
            // An image dressed as a clip, by its type and by its name.
            case "/dressed", "/photo.mp4":
                .init(headers: [("Content-Type", "video/mp4")], body: TestPhotos.jpeg(10))
            // A clip under a type that says nothing, larger than max_image_bytes.
            default: .init(headers: [("Content-Type", "application/octet-stream")], body: clip)
            }
        }
        let loader = fixture.loader {
            $0.maxImageBytes = 500
            $0.maxVideoBytes = 100_000
        }
        for path in ["/dressed", "/photo.mp4"] {
            let error = await #expect(throws: LoadingError.self) { try await loader.original(for: fixture.url(path)) }
            #expect(error?.code == .tooLarge && error?.message.contains("max_image_bytes (500)") == true, "\(path)")
        }
        let original = try await loader.original(for: fixture.url("/generic"))
        #expect(original.byteCount == Int64(clip.count), "the bytes said it is a clip: video.max_bytes applies")
        #expect(fixture.leftovers.isEmpty)
        try await fixture.close()
    }

    @Test func aDownServerMeansTheStaleCopyWithAWarning() async throws {
        let fixture = try await LoaderFixture { _ in .photo(11) }
        let first = try await fixture.loader().original(for: fixture.url("/s.jpg"))
        try await fixture.reopenCache()
        fixture.server.setHandler { _ in .text(503) }

        let loader = fixture.loader()
        let second = try await loader.original(for: fixture.url("/s.jpg"))

        #expect(second.origin == .stale && second.sha256 == first.sha256)
        #expect(second.warning?.hasPrefix("the server answered 503") == true, "\(second.warning ?? "no warning")")
        try await fixture.close()
    }

    @Test func aCorruptedBlobIsNoticedAndFetchedOnce() async throws {
        let fixture = try await LoaderFixture { .revalidating($0, photo: 12) }
        let first = try await fixture.loader().original(for: fixture.url("/b.jpg"))
        try await fixture.reopenCache()
        var bytes = try [UInt8](Data(contentsOf: first.file))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: first.file)
        try await fixture.reopenCache()
        fixture.server.resetCounts()

        let second = try await fixture.loader().original(for: fixture.url("/b.jpg"))

        #expect(second.origin == .downloaded && second.sha256 == first.sha256)
        #expect(fixture.server.requests.map(\.isConditional) == [false], "one unconditional fetch")
        #expect(try FileDigest.sha256(of: second.file).hex == first.sha256)
        try await fixture.close()
    }

    @Test func offlineUsesTheCacheAndNamesWhatIsMissing() async throws {
        let fixture = try await LoaderFixture { _ in .photo(13) }
        _ = try await fixture.loader().original(for: fixture.url("/o.jpg"))
        try await fixture.reopenCache()
        fixture.server.resetCounts()

        let offline = fixture.loader { $0.offline = true }
        #expect(try await offline.original(for: fixture.url("/o.jpg")).origin == .offline)
        let error = await #expect(throws: LoadingError.self) {
            try await offline.original(for: fixture.url("/never.jpg"))
        }
        #expect(error?.code == .offlineMiss)
        #expect(fixture.server.requests.isEmpty)
        try await fixture.close()
    }

    @Test func cancellingTheOnlyWaiterAbortsTheTransferAndLeavesNothing() async throws {
        let fixture = try await LoaderFixture { _ in
            var response = TestHTTPServer.Response.photo(14)
            response.delay = .seconds(20)
            return response
        }
        let loader = ImageLoader(configuration: .init(), remote: fixture.loader())
        let waiter = Task { try await loader.original(for: fixture.url("/slow.jpg")) }
        try await waitUntil("the request reaches the server") { !fixture.server.requests.isEmpty }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await loader.cancelAndDrain()
        #expect(fixture.leftovers.isEmpty && fixture.folder.allFiles(under: "cache/v1/blobs").isEmpty)
        try await fixture.close()
    }

    @Test func copiesAskedAboutInOnePassGetTheAnswersALoadWouldGiveEach() async throws {
        let changed = Mutex(false)
        let fixture = try await LoaderFixture { request in
            switch request.path {
            case "/gone.jpg" where request.isConditional: return .text(404)
            case "/changed.jpg" where changed.withLock({ $0 }):
                return .revalidating(request, photo: 12, etag: "\"v2\"")
            case "/changed.jpg": return .revalidating(request, photo: 11)
            // The same bytes, said to be modified at another time: a 304 that changes the copy's
            // validators.
            case "/redated.jpg" where request.isConditional:
                return TestHTTPServer.Response(
                    status: 304,
                    headers: [("ETag", "\"photo-10\""), ("Last-Modified", "Tue, 24 Nov 2026 10:00:00 GMT")])
            default: return .revalidating(request, photo: 10)
            }
        }
        let paths = ["/same.jpg", "/changed.jpg", "/gone.jpg", "/redated.jpg"]
        for path in paths { _ = try await fixture.loader().original(for: fixture.url(path)) }
        let before = try await fixture.loader().original(for: fixture.url("/changed.jpg"))
        changed.withLock { $0 = true }
        fixture.server.resetCounts()
        let answered = Mutex<[String]>([])
        let withNewBytes = Mutex<[String]>([])

        let asked = paths + ["/never-loaded.jpg"]
        let result = await fixture.loader { $0.refresh = true }.revalidateCopies(
            of: asked.map(fixture.url), width: 2
        ) { position, newBytes in
            answered.withLock { $0.append(asked[position]) }
            if newBytes != nil { withNewBytes.withLock { $0.append(asked[position]) } }
        }
        func answer(_ path: String) -> Result<Original, any Error>? { result[asked.firstIndex(of: path)!] }

        #expect(try answer("/same.jpg")?.get().origin == .revalidated)
        let redated = try #require(try answer("/redated.jpg")?.get())
        #expect(redated.origin == .revalidated && redated.validators.lastModified == "Tue, 24 Nov 2026 10:00:00 GMT")
        // Only /same.jpg's answer left its copy as it was.
        #expect(result.unchanged == 1)
        let replaced = try #require(try answer("/changed.jpg")?.get())
        #expect(replaced.origin == .downloaded && replaced.sha256 != before.sha256)
        #expect(throws: LoadingError.self) { try answer("/gone.jpg")?.get() }
        // Not in the cache: left to the usual load, and not asked about.
        #expect(answer("/never-loaded.jpg") == nil)
        #expect(result.count == 4)
        #expect(answered.withLock { $0.sorted() } == paths.sorted())
        #expect(withNewBytes.withLock { $0 } == ["/changed.jpg"])
        #expect(fixture.server.requests.map(\.path).sorted() == paths.sorted())
        #expect(fixture.server.requests.allSatisfy { $0.isConditional })
        try await fixture.close()
    }

    @Test func conditionalRequestsAnsweredWith304KeepTheirConnections() async throws {
        let fixture = try await LoaderFixture { request in .revalidating(request, photo: 13) }
        let sources = (0..<40).map { fixture.url("/p\($0).jpg") }
        for source in sources { _ = try await fixture.loader().original(for: source) }
        fixture.server.resetCounts()

        let loader = fixture.loader {
            $0.refresh = true
            $0.perHost = 2
        }
        let result = await loader.revalidateCopies(of: sources, width: 8) { _, _ in }

        #expect(result.count == 40 && result.unchanged == 40)
        #expect(try sources.indices.allSatisfy { try result[$0]?.get().origin == .revalidated })
        // A 304 dropped unread made the client close its connection: one per request or so.
        #expect(fixture.server.connections <= 2, "\(fixture.server.connections) connections for 40 answers")
        try await fixture.close()
    }

    @Test func workersFillEveryHostsSlotsAndNoMore() {
        func urls(_ hosts: [String], each: Int) -> [CanonicalURL] {
            hosts.flatMap { host in (0..<each).map { CanonicalURL(string: "\(host)/\($0).jpg")! } }
        }
        let one = urls(["https://a.example"], each: 50)
        #expect(HTTPLoader.workers(for: one, width: 16, perHost: 6) == 6)
        let two = urls(["http://a.example:8080", "https://b.example"], each: 50)
        #expect(HTTPLoader.workers(for: two, width: 16, perHost: 6) == 12)
        let many = urls((0..<5).map { "https://h\($0).example" }, each: 10)
        #expect(HTTPLoader.workers(for: many, width: 16, perHost: 6) == 16)
        #expect(HTTPLoader.workers(for: Array(one.prefix(3)), width: 16, perHost: 6) == 3)
    }
}
