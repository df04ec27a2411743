import Foundation
import GalleryCore
import GalleryJSON
import Loading
import Reporting
import Synchronization
import TestSupport
import Testing

@testable import GalleryBuild

/// Builds on an empty cache seeded from a published site (`seed:`, `--seed`): a fresh CI runner.
@Suite struct SeedBuildTests {
    /// A published site: the files of an output folder over HTTP, any of which can be replaced.
    final class PublishedSite: Sendable {
        final class Overrides: Sendable {
            let responses = Mutex<[String: TestHTTPServer.Response]>([:])
        }

        let server: TestHTTPServer
        private let overrides: Overrides

        init(_ folder: URL) async throws {
            let overrides = Overrides()
            self.overrides = overrides
            server = try await TestHTTPServer { request in
                if let response = overrides.responses.withLock({ $0[request.path] }) { return response }
                let file = folder.appendingPathComponent(String(request.path.dropFirst()))
                guard !request.path.contains(".."), let data = FileManager.default.contents(atPath: file.path) else {
                    return .text(404)
                }
                return TestHTTPServer.Response(body: Array(data))
            }
        }

        var url: String { server.baseURL + "/" }

        func replace(_ path: String, with response: TestHTTPServer.Response) {
            overrides.responses.withLock { $0["/" + path] = response }
        }

        /// Requests for thumbnails (not the manifest).
        var thumbnailRequests: Int { server.requests.filter { $0.path.hasPrefix("/images/") }.count }
    }

    func remoteSite(_ upstream: Upstream) throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Remote\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")
        return site
    }

    func build(_ site: FixtureSite, seed: String? = nil) async throws -> BuildResult {
        try await SiteBuilder(siteDirectory: site.url, options: BuildOptions(seed: seed)).build()
    }

    /// A site of `count` photos from an ``Upstream``, built and published.
    func published(count: Int) async throws -> (Upstream, FixtureSite, PublishedSite) {
        let upstream = try await Upstream(count: count)
        let site = try remoteSite(upstream)
        _ = try await build(site)
        return (upstream, site, try await PublishedSite(site.folder.file("public")))
    }

    /// A site of `count` photos in the site folder, built and published.
    func publishedLocally(count: Int) async throws -> (FixtureSite, PublishedSite) {
        let site = try FixtureSite(count: count)
        _ = try await build(site)
        return (site, try await PublishedSite(site.folder.file("public")))
    }

    func outputs(_ site: FixtureSite) throws -> [String: Data] {
        try site.snapshot().mapValues(\.0)
    }

    @Test func aFreshRunnerDownloadsAndEncodesNothingAndWritesThePublishedSite() async throws {
        let upstream = try await Upstream(count: 5)
        upstream.setExtraEntries([#"{"title": "again", "imageUrl": "photos/2.jpg"}"#])
        let published = try remoteSite(upstream)
        _ = try await build(published)
        let live = try await PublishedSite(published.folder.file("public"))
        upstream.server.resetCounts()

        let runner = try remoteSite(upstream)
        let result = try await build(runner, seed: live.url)

        let counts = result.report.counts
        #expect(counts.downloaded == 0 && counts.processed == 0 && counts.failed == 0)
        #expect(counts.notModified == 5 && counts.seeded == 5)
        #expect(upstream.photoRequests.count == 5 && upstream.photoRequests.allSatisfy(\.isConditional))
        let manifest = try Manifest.decode(Data(contentsOf: published.folder.file("public/gallery-manifest.json")))
        #expect(live.thumbnailRequests == manifest.photos.prefix(5).map(\.renditions.count).reduce(0, +))
        #expect(live.thumbnailRequests > 5, "each thumbnail fetched once")
        #expect(result.report.warnings.isEmpty)
        #expect(try outputs(runner) == outputs(published), "byte for byte the published site")

        // The next build on that runner has the thumbnails: only the seed's manifest is read.
        live.server.resetCounts()
        let again = try await build(runner, seed: live.url)
        #expect(again.report.counts.processed == 0 && again.report.counts.downloaded == 0)
        #expect(live.thumbnailRequests == 0)
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test func aWarmCacheNeverAsksTheSeed() async throws {
        let upstream = try await Upstream(count: 3)
        let site = try remoteSite(upstream)
        _ = try await build(site)
        let live = try await PublishedSite(site.folder.file("public"))

        let result = try await build(site, seed: live.url)

        #expect(live.server.requests.isEmpty)
        #expect(result.report.counts.notModified == 3 && result.report.counts.seeded == 0)
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test func whatTheSeedGetsWrongIsMadeHereWithAWarning() async throws {
        let (upstream, published, live) = try await published(count: 4)
        let manifest = try Manifest.decode(Data(contentsOf: published.folder.file("public/gallery-manifest.json")))
        // Photo 1's largest WebP is damaged on the live site, photo 2's is cut short.
        let first = try #require(manifest.photos[0].renditions.last)
        live.replace(first.path, with: TestHTTPServer.Response(body: Array(repeating: 7, count: Int(first.byteCount))))
        let second = try #require(manifest.photos[1].renditions.last)
        live.replace(second.path, with: TestHTTPServer.Response(body: Array(repeating: 1, count: 10)))
        upstream.server.resetCounts()

        let runner = try remoteSite(upstream)
        let result = try await build(runner, seed: live.url)

        let counts = result.report.counts
        #expect(counts.seeded == 2 && counts.processed == 2 && counts.failed == 0)
        #expect(counts.downloaded == 2, "the two originals whose thumbnails the seed could not give")
        #expect(result.report.warnings.contains { $0.contains("1 thumbnail set did not match its recorded hash") })
        #expect(result.report.warnings.contains { $0.contains("1 thumbnail set truncated or padded") })
        #expect(try outputs(runner) == outputs(published))
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test func aChangedSourceIsDownloadedAndEncodedDespiteTheSeed() async throws {
        let (upstream, published, live) = try await published(count: 3)
        upstream.change(2)

        let runner = try remoteSite(upstream)
        let result = try await build(runner, seed: live.url)

        let counts = result.report.counts
        #expect(counts.seeded == 2 && counts.processed == 1 && counts.downloaded == 1 && counts.notModified == 2)
        let written = try Manifest.decode(Data(contentsOf: runner.folder.file("public/gallery-manifest.json")))
        let old = try Manifest.decode(Data(contentsOf: published.folder.file("public/gallery-manifest.json")))
        #expect(written.photos[1].sha256 != old.photos[1].sha256)
        #expect(written.photos[0] == old.photos[0] && written.photos[2] == old.photos[2])
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test(arguments: [
        ("missing", TestHTTPServer.Response.text(404), "HTTP 404"),
        ("garbage", TestHTTPServer.Response(body: Array("<html>not json".utf8)), "not a gallerygen manifest"),
    ])
    func aSeedWithoutAManifestCostsOnlyTime(_ kind: String, answer: TestHTTPServer.Response, says: String)
        async throws
    {
        let (upstream, published, live) = try await published(count: 3)
        live.replace("gallery-manifest.json", with: answer)

        let runner = try remoteSite(upstream)
        let result = try await build(runner, seed: live.url)

        #expect(result.report.counts.downloaded == 3 && result.report.counts.processed == 3, "\(kind)")
        #expect(result.report.warnings.count == 1)
        #expect(result.report.warnings.first?.contains(says) == true, "\(result.report.warnings)")
        #expect(try outputs(runner) == outputs(published))
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test func anUnreachableSeedCostsOnlyTime() async throws {
        let (upstream, published, live) = try await published(count: 2)
        let address = live.url
        try await live.server.shutdown()

        let runner = try remoteSite(upstream)
        let result = try await build(runner, seed: address)

        #expect(result.report.counts.processed == 2 && result.report.counts.failed == 0)
        #expect(result.report.warnings.first?.hasPrefix("seed \(address): cannot read gallery-manifest.json") == true)
        #expect(try outputs(runner) == outputs(published))
        try await upstream.server.shutdown()
    }

    @Test func photosInTheRepositoryAreSeededByTheirHash() async throws {
        let (published, live) = try await publishedLocally(count: 3)
        // The same checkout on another machine: no output, no cache.
        let runner = try FixtureSite(count: 3)

        let result = try await build(runner, seed: live.url)

        #expect(result.report.counts.local == 3 && result.report.counts.processed == 0)
        #expect(result.report.counts.seeded == 3)
        #expect(try outputs(runner) == outputs(published), "photo pages are named the same wherever the site is")
        try await live.server.shutdown()
    }

    @Test func aClipIsSeededWithItsVideos() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let published = try FixtureSite(count: 0)
        try published.folder.write("title: Clips\nfeed: photos\nimages:\n  widths: [48]\n", to: "gallery.yml")
        try TestClip.make(.silentMP4, named: "clip.mp4", in: published.folder.file("photos"))
        #expect(try await build(published).report.counts.processed == 1)
        let live = try await PublishedSite(published.folder.file("public"))
        // The same checkout on another machine: no output, no cache.
        let runner = try FixtureSite(count: 0)
        try runner.folder.write("title: Clips\nfeed: photos\nimages:\n  widths: [48]\n", to: "gallery.yml")
        try FileManager.default.copyItem(at: published.folder.file("photos"), to: runner.folder.file("photos"))

        let result = try await build(runner, seed: live.url)

        #expect(result.report.counts.processed == 0 && result.report.counts.seeded == 1)
        #expect(result.report.counts.videos == 1)
        #expect(live.server.requests.contains { $0.path.hasSuffix("p.mp4") }, "the video came from the live site")
        #expect(try outputs(runner) == outputs(published))
        try await live.server.shutdown()
    }

    @Test func anotherRecipeIsNotTakenFromTheSeed() async throws {
        let (_, live) = try await publishedLocally(count: 2)
        let runner = try FixtureSite(count: 2, extraConfig: "  quality: 60")

        let result = try await build(runner, seed: live.url)

        #expect(result.report.counts.seeded == 0 && result.report.counts.processed == 2)
        #expect(live.thumbnailRequests == 0, "names made with another recipe differ: nothing fetched")
        try await live.server.shutdown()
    }

    @Test func otherWidthsAreNotTakenFromTheSeed() async throws {
        let (_, live) = try await publishedLocally(count: 2)
        let runner = try FixtureSite(count: 2)
        try runner.folder.write(
            "title: Test gallery\nfeed: feed.json\nimages:\n  widths: [64, 96]\n", to: "gallery.yml")

        let result = try await build(runner, seed: live.url)

        #expect(result.report.counts.seeded == 0 && result.report.counts.processed == 2)
        #expect(runner.folder.allFiles(under: "public/images").contains { $0.hasSuffix("-96.webp") })
        try await live.server.shutdown()
    }

    @Test func aNameTheBuildWouldNotGiveIsNeverTaken() async throws {
        let published = try FixtureSite(count: 2)
        _ = try await build(published)
        let expected = try outputs(published)
        // The live site lists photo 1's small thumbnail under an HTML name, with the file there.
        let manifestFile = published.folder.file("public/gallery-manifest.json")
        let manifest = try Manifest.decode(Data(contentsOf: manifestFile))
        let name = try #require(manifest.photos[0].renditions.first?.fileName)
        let hostile = name.replacingOccurrences(of: ".webp", with: ".html")
        let text = try String(contentsOf: manifestFile, encoding: .utf8).replacingOccurrences(of: name, with: hostile)
        try published.folder.write(text, to: "public/gallery-manifest.json")
        try FileManager.default.moveItem(
            at: published.folder.file("public/images/\(name)"), to: published.folder.file("public/images/\(hostile)"))
        let live = try await PublishedSite(published.folder.file("public"))
        let runner = try FixtureSite(count: 2)

        let result = try await build(runner, seed: live.url)

        #expect(result.report.counts.seeded == 1 && result.report.counts.processed == 1)
        #expect(!live.server.requests.contains { $0.path.hasSuffix(".html") }, "not even asked for")
        #expect(try outputs(runner) == expected)
        try await live.server.shutdown()
    }

    /// The live site's manifest gives photo 2 photo 1's hash and thumbnails (with photo 2's own
    /// validators, so the origin answers 304): taken without a key, as the docs say; with the
    /// site's key the unsigned record is made here instead. A record naming a path outside
    /// `images/` is dropped and counted without a key; with one, its MAC no longer checks.
    @Test func aForgedManifestRecordIsNotTakenWithTheKey() async throws {
        let key = try #require(SigningKey(secret: "site-secret-for-tests"))
        let upstream = try await Upstream(count: 3)
        let published = try remoteSite(upstream)
        _ = try await SiteBuilder(siteDirectory: published.url, options: BuildOptions(signingKey: key)).build()
        let expected = try outputs(published)
        let manifestFile = published.folder.file("public/gallery-manifest.json")
        var manifest = try Manifest.decode(Data(contentsOf: manifestFile))
        #expect(manifest.photos.allSatisfy { $0.isSigned(by: key) })
        let victim = manifest.photos[1]
        manifest.photos[1] = manifest.photos[0]
        manifest.photos[1].id = victim.id
        manifest.photos[1].source = victim.source
        manifest.photos[1].validators = victim.validators
        manifest.photos[1].mac = victim.mac
        manifest.photos[2].renditions[0].path = "images/../../outside.webp"
        try await manifest.encoded().write(to: manifestFile)
        let live = try await PublishedSite(published.folder.file("public"))

        let trusting = try remoteSite(upstream)
        let fooled = try await SiteBuilder(
            siteDirectory: trusting.url, options: BuildOptions(seed: live.url, signingKey: nil)
        ).build()
        #expect(fooled.report.counts.seeded >= 1)
        #expect(try outputs(trusting) != expected, "without a key the live site is trusted")
        #expect(fooled.report.warnings.contains { $0.contains("1 manifest records were not well-formed") })

        let runner = try remoteSite(upstream)
        let result = try await SiteBuilder(
            siteDirectory: runner.url, options: BuildOptions(seed: live.url, signingKey: key)
        ).build()
        #expect(
            result.report.warnings.contains { $0.contains("2 manifest records were not signed with this site's key") },
            "\(result.report.warnings)")
        #expect(result.report.counts.seeded == 1 && result.report.counts.processed == 2, "\(result.report.counts)")
        #expect(try outputs(runner) == expected)
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }

    @Test func aManifestTooLargeIsRefusedWhileItArrives() async throws {
        let (site, live) = try await publishedLocally(count: 1)
        // Announced larger than the limit: refused by its head, before its body is read.
        live.replace(
            "gallery-manifest.json",
            with: TestHTTPServer.Response(body: Array(repeating: 0x20, count: SiteSeed.maxManifestBytes + 4096)))
        let runner = try FixtureSite(count: 1)
        let result = try await build(runner, seed: live.url)
        let warning = try #require(result.report.warnings.first { $0.contains("gallery-manifest.json") })
        #expect(warning.contains("is larger than") && !warning.contains("NIO"), "\(warning)")
        #expect(result.report.counts.processed == 1)
        _ = site
        try await live.server.shutdown()
    }

    @Test func aManifestThatIsNotJSONIsNamedInWords() async throws {
        let (_, live) = try await publishedLocally(count: 1)
        live.replace("gallery-manifest.json", with: TestHTTPServer.Response(body: Array("{\"files\": [".utf8)))
        let runner = try FixtureSite(count: 1)
        let result = try await build(runner, seed: live.url)
        let warning = try #require(result.report.warnings.first { $0.contains("gallery-manifest.json") })
        #expect(warning.contains("line 1, column") && !warning.contains("Failure("), "\(warning)")
        try await live.server.shutdown()
    }

    @Test func validatorsThatMatchAnythingAreNotSent() async throws {
        let (upstream, published, _) = try await published(count: 2)
        let manifestFile = published.folder.file("public/gallery-manifest.json")
        let text = try String(contentsOf: manifestFile, encoding: .utf8)
            .replacingOccurrences(of: #""etag":"\"p1-v0\"""#, with: #""etag":"*""#)
        #expect(text.contains(#""etag":"*""#))
        try published.folder.write(text, to: "public/gallery-manifest.json")
        let live = try await PublishedSite(published.folder.file("public"))
        upstream.server.resetCounts()

        let runner = try remoteSite(upstream)
        let result = try await build(runner, seed: live.url)

        #expect(!upstream.photoRequests.contains { $0.headers["if-none-match"] == "*" })
        let counts = result.report.counts
        #expect(counts.downloaded == 1 && counts.notModified == 1, "photo 1 fetched whole")
        #expect(counts.processed == 0 && counts.seeded == 2, "its thumbnails still come from the seed, by its hash")
        try await live.server.shutdown()
        try await upstream.server.shutdown()
    }
}
