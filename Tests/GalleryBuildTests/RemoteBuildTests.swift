import Foundation
import GalleryCore
import GalleryJSON
import Loading
import Reporting
import Synchronization
import TestSupport
import Testing

@testable import GalleryBuild

/// Builds of a site whose feed and photos come over HTTP from an ``Upstream``.
@Suite struct RemoteBuildTests {
    func site(feed: String, extraConfig: String = "") throws -> FixtureSite {
        try FixtureSite(feed: feed, title: "Remote", extraConfig: extraConfig)
    }

    func build(_ site: FixtureSite, _ options: BuildOptions = BuildOptions()) async throws -> BuildResult {
        try await SiteBuilder(siteDirectory: site.url, options: options).build()
    }

    @Test func aColdBuildFetchesEachPhotoOnceAndReportsIt() async throws {
        let upstream = try await Upstream(count: 6)
        upstream.setExtraEntries([#"{"title": "again", "imageUrl": "photos/2.jpg"}"#])
        let site = try site(feed: upstream.feedURL)

        let result = try await build(site)

        #expect(result.report.counts.photos == 7 && result.report.counts.urls == 6)
        #expect(result.report.counts.downloaded == 6 && result.report.counts.failed == 0)
        #expect(result.report.counts.requests == 7, "the feed and six photos")
        #expect(result.report.counts.bytesTransferred > 0)
        #expect(upstream.photoRequests.count == 6)
        #expect(site.folder.allFiles(under: "public/images").count == 12)
        try await upstream.server.shutdown()
    }

    @Test func aNoChangeRebuildSendsOnlyConditionalRequestsAndRewritesNothing() async throws {
        let upstream = try await Upstream(count: 5)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        let before = try site.snapshot()
        upstream.server.resetCounts()

        let result = try await build(site)

        #expect(upstream.server.requests.allSatisfy { $0.isConditional })
        #expect(upstream.photoRequests.count == 5)
        #expect(result.report.counts.notModified == 5 && result.report.counts.downloaded == 0)
        #expect(result.report.counts.processed == 0 && result.report.counts.filesWritten == 0)
        let after = try site.snapshot()
        #expect(before.mapValues(\.0) == after.mapValues(\.0))
        #expect(before.mapValues(\.1) == after.mapValues(\.1), "no output file rewritten")
        try await upstream.server.shutdown()
    }

    @Test func aRebuildAsksAboutEachCachedURLOnceAndCountsEveryPhotoOnce() async throws {
        let upstream = try await Upstream(count: 5)
        upstream.setExtraEntries([#"{"title": "again", "imageUrl": "photos/2.jpg"}"#])
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        upstream.change(3)
        upstream.server.resetCounts()
        let progress = Mutex<[Int]>([])

        let result = try await SiteBuilder(siteDirectory: site.url) { event in
            if case .advanced(.load, let done, let total) = event, total == 6 { progress.withLock { $0.append(done) } }
        }.build()

        #expect(upstream.photoRequests.count == 5 && upstream.photoRequests.allSatisfy { $0.isConditional })
        let counts = result.report.counts
        #expect(counts.photos == 6 && counts.notModified == 4 && counts.downloaded == 1 && counts.processed == 1)
        #expect(progress.withLock { $0.sorted() } == Array(1...6), "each photo counted once")
        try await upstream.server.shutdown()
    }

    @Test func aCopyGoneUpstreamFailsEachPhotoThatNamesItAndTheRestStay() async throws {
        let gone = Mutex(false)
        let server = try await TestHTTPServer { request in
            if request.path == "/b.jpg", gone.withLock({ $0 }) { return .text(404) }
            return .revalidating(request, photo: request.path == "/a.jpg" ? 1 : 2)
        }
        let site = try site(feed: "feed.json")
        try site.writeFeed(
            ["a", "b", "b"].map { #"{"title": "\#($0)", "imageUrl": "\#(server.baseURL)/\#($0).jpg"}"# })
        #expect(try await build(site).report.counts.failed == 0)
        gone.withLock { $0 = true }
        server.resetCounts()

        let report = try await build(site).report

        #expect(server.requests.count == 2 && server.requests.allSatisfy { $0.isConditional })
        #expect(report.counts.failed == 2 && report.counts.notModified == 1)
        #expect(report.failures.map(\.stage) == ["load", "load"])
        #expect(report.failures.allSatisfy { $0.message.contains("404") }, "\(report.failures.map(\.message))")
        try await server.shutdown()
    }

    @Test func copiesChangedUpstreamAreMadeWhileThePassStillWaitsOnOthers() async throws {
        let site = try site(feed: "feed.json")
        let thumbnails: @Sendable () -> Int = { site.folder.allFiles(under: ".gallerygen-cache/v1/renditions").count }
        let changed = Mutex(false)
        let thumbnailsBefore = Mutex(Int.max)
        let madeWhileWaiting = Mutex(false)
        let server = try await TestHTTPServer { request in
            let number = ["/a.jpg": 1, "/b.jpg": 2][request.path] ?? 3
            guard changed.withLock({ $0 }) else { return .revalidating(request, photo: number) }
            // a and b changed upstream; c's answer, a 304, waits until their thumbnails are on
            // disk: made after the pass, they never are in time (the client gives c up at its
            // 30 s deadline, and uses its copy with a warning).
            if number < 3 { return .revalidating(request, photo: number + 10) }
            var response = TestHTTPServer.Response.revalidating(request, photo: 3)
            response.delay = .seconds(40)
            response.until = {
                let made = thumbnails() > thumbnailsBefore.withLock { $0 }
                if made { madeWhileWaiting.withLock { $0 = true } }
                return made
            }
            return response
        }
        try site.writeFeed(
            ["a", "b", "c"].map { #"{"title": "\#($0)", "imageUrl": "\#(server.baseURL)/\#($0).jpg"}"# })
        #expect(try await build(site).report.counts.processed == 3)
        thumbnailsBefore.withLock { $0 = thumbnails() }
        changed.withLock { $0 = true }

        let report = try await build(site).report

        #expect(madeWhileWaiting.withLock { $0 }, "the changed photos' thumbnails were made only after the pass")
        #expect(report.counts.downloaded == 2 && report.counts.notModified == 1)
        #expect(report.counts.processed == 2 && report.failures.isEmpty && report.warnings.isEmpty)
        try await server.shutdown()
    }

    @Test func whileFreshNothingIsAsked() async throws {
        let upstream = try await Upstream(count: 3)
        upstream.setCacheControl("max-age=3600")
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        upstream.server.resetCounts()
        let store = site.folder.file(".gallerygen-cache/v1/store.sqlite")
        let storeBytes = try Data(contentsOf: store)
        let before = try site.snapshot()

        let result = try await build(site)

        #expect(upstream.server.requests.isEmpty)
        #expect(result.report.counts.fresh == 3 && result.report.counts.requests == 0)
        #expect(result.report.counts.processed == 0 && result.report.counts.filesWritten == 0)
        #expect(try site.snapshot().mapValues(\.0) == before.mapValues(\.0))
        #expect(try Data(contentsOf: store) == storeBytes, "nothing changed: no URL record is written")

        // Fresh originals whose thumbnails left the cache: made again, still without a request.
        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache/v1/renditions"))
        let remade = try await build(site)
        #expect(upstream.server.requests.isEmpty)
        #expect(remade.report.counts.fresh == 3 && remade.report.counts.processed == 3)
        // Loading and imaging are reported as two stages (their spans are measured in the
        // benchmark, not compared here: under load either may be the longer).
        #expect(remade.report.seconds["load"] != nil && remade.report.seconds["images"] != nil)
        #expect(remade.report.counts.failed == 0 && remade.report.counts.filesWritten == 0)
        #expect(try site.snapshot().mapValues(\.0) == before.mapValues(\.0))
        try await upstream.server.shutdown()
    }

    @Test func oneChangedPhotoIsOneTransferAndOnlyItsFilesChange() async throws {
        let upstream = try await Upstream(count: 5)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        let before = try site.snapshot()
        let manifestBefore = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        upstream.server.resetCounts()
        upstream.change(3)

        let result = try await build(site)

        let statuses = upstream.photoRequests.map(\.isConditional)
        #expect(statuses.count == 5 && statuses.allSatisfy { $0 }, "all photos asked conditionally")
        #expect(result.report.counts.downloaded == 1 && result.report.counts.notModified == 4)
        #expect(result.report.counts.processed == 1)
        let manifest = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        let oldThird = Set(manifestBefore.photos[2].renditions.map(\.path))
        let newThird = Set(manifest.photos[2].renditions.map(\.path))
        #expect(oldThird.isDisjoint(with: newThird), "photo 3's renditions are replaced")
        let after = try site.snapshot()
        for path in oldThird { #expect(after["\(path)"] == nil, "\(path) removed") }
        for photo in manifest.photos where photo.id != manifest.photos[2].id {
            for rendition in photo.renditions {
                #expect(after[rendition.path]?.1 == before[rendition.path]?.1, "\(rendition.path) untouched")
            }
        }
        try await upstream.server.shutdown()
    }

    @Test func aDownServerMeansStaleCopiesAWarningAndExitZero() async throws {
        let upstream = try await Upstream(count: 3)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        upstream.setDown(true)

        let result = try await build(site)

        #expect(result.report.counts.stale == 3 && result.report.counts.failed == 0)
        #expect(result.report.warnings.count == 4, "the feed and three photos: \(result.report.warnings)")
        #expect(result.report.warnings.allSatisfy { $0.contains("503") && $0.contains("using the copy cached") })
        #expect(!result.failsBuild(strict: false))
        #expect(result.failsBuild(strict: true))
        try await upstream.server.shutdown()
    }

    @Test func aHostThatIsGoneMeansStaleCopiesWithoutAWait() async throws {
        let upstream = try await Upstream(count: 40)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        try await upstream.server.shutdown()  // nothing listens on the port any more

        let result = try await build(site)

        #expect(result.report.counts.stale == 40 && result.report.counts.failed == 0)
        #expect(result.report.warnings.allSatisfy { $0.contains("cannot reach") || $0.contains("cannot connect") })
        // One host: its first requests find it gone after their retries, the rest fail at once.
        #expect(
            result.report.counts.requests <= 3 * 7,
            "at most per_host + 1 requests retried: \(result.report.counts.requests)")
    }

    @Test func anEntryGoneFromTheFeedLosesItsFilesAndANewOneIsFetched() async throws {
        let upstream = try await Upstream(count: 4)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        upstream.setCount(3)
        upstream.setExtraEntries([#"{"title": "new", "imageUrl": "photos/9.jpg"}"#])
        upstream.server.resetCounts()

        let result = try await build(site)

        #expect(upstream.photoRequests.filter { !$0.isConditional }.map(\.path) == ["/photos/9.jpg"])
        // Its two thumbnails and its page.
        #expect(result.report.counts.filesRemoved == 3 && result.report.counts.downloaded == 1)
        #expect(site.folder.allFiles(under: "public/images").count == 8)
        try await upstream.server.shutdown()
    }

    @Test func offlineBuildsFromTheCacheAndFailsClearlyForWhatItLacks() async throws {
        let upstream = try await Upstream(count: 2)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        upstream.server.resetCounts()

        let result = try await build(site, BuildOptions(offline: true))
        #expect(upstream.server.requests.isEmpty && result.report.counts.failed == 0)

        let empty = try self.site(feed: upstream.feedURL)
        await #expect {
            try await build(empty, BuildOptions(offline: true))
        } throws: { error in
            "\(error)".contains("--offline sends no request")
        }
        try await upstream.server.shutdown()
    }

    @Test func aNotFoundPhotoIsAReportEntryAfterOneRequest() async throws {
        let upstream = try await Upstream(count: 2)
        upstream.setExtraEntries([#"{"title": "gone", "imageUrl": "photos/missing.jpg"}"#])
        let site = try site(feed: upstream.feedURL)

        let result = try await build(site)

        #expect(upstream.server.count("/photos/missing.jpg") == 1)
        #expect(result.report.counts.failed == 1)
        #expect(result.report.failures.first?.message.contains("404") == true)
        try await upstream.server.shutdown()
    }

    @Test func theCacheStaysWithinItsLimitAndKeepsWhatTheBuildUses() async throws {
        let upstream = try await Upstream(count: 4)
        let site = try site(feed: upstream.feedURL, extraConfig: "cache_limit: 1B")
        let result = try await build(site)
        #expect(result.report.counts.failed == 0)
        #expect(
            result.report.warnings.contains { $0.contains("over cache_limit (1 B): this build alone uses that much") },
            "going over the limit is said: \(result.report.warnings)")
        // Everything this build used is kept, however small the limit.
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/blobs").count == 5, "four photos and the feed")
        upstream.setCount(1)
        _ = try await build(site)
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/blobs").count == 2, "unused ones evicted")
        try await upstream.server.shutdown()
    }

    // MARK: A damaged cache (issue 10, case 2)

    /// The cached blob of the first photo of the site's manifest.
    func blob(ofFirstPhotoIn site: FixtureSite) throws -> URL {
        let manifest = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        let sha256 = try #require(manifest.photos.first?.sha256)
        return site.folder.file(".gallerygen-cache/v1/blobs/\(sha256)")
    }

    @Test func aTruncatedBlobIsReplacedByTheNextDownloadAndStaysRepaired() async throws {
        let upstream = try await Upstream(count: 2)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        let blob = try blob(ofFirstPhotoIn: site)
        let whole = try Data(contentsOf: blob)
        try whole.prefix(whole.count / 2).write(to: blob)
        upstream.server.resetCounts()

        let repaired = try await build(site)

        #expect(upstream.server.count("/photos/1.jpg") == 1)
        #expect(upstream.photoRequests.filter { !$0.isConditional }.map(\.path) == ["/photos/1.jpg"])
        #expect(repaired.report.counts.downloaded == 1 && repaired.report.counts.failed == 0)
        #expect(try Data(contentsOf: blob) == whole, "the blob holds the whole photo again")

        upstream.server.resetCounts()
        let next = try await build(site)
        #expect(upstream.photoRequests.allSatisfy { $0.isConditional }, "repaired for good: no second download")
        #expect(next.report.counts.downloaded == 0 && next.report.counts.notModified == 2)
        try await upstream.server.shutdown()
    }

    @Test func aFlippedByteUnderAnOldMtimeIsCaughtBeforeItIsDecoded() async throws {
        let upstream = try await Upstream(count: 2)
        upstream.setCacheControl("max-age=3600")
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        let images = try site.snapshot(of: "public/images").mapValues(\.0)
        let blob = try blob(ofFirstPhotoIn: site)
        try FileTampering.flipByte(in: blob)
        // Thumbnails gone: the build must decode the originals, and so must trust them first.
        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache/v1/renditions"))
        upstream.server.resetCounts()

        let result = try await build(site)

        #expect(upstream.photoRequests.map(\.path) == ["/photos/1.jpg"], "only the damaged photo, once")
        #expect(result.report.counts.failed == 0 && result.report.counts.processed == 2)
        #expect(try site.snapshot(of: "public/images").mapValues(\.0) == images, "the same thumbnails")
        #expect(try FileDigest.sha256(of: blob).hex == blob.lastPathComponent)
        try await upstream.server.shutdown()
    }

    @Test func offlineADamagedBlobIsAFailureNotARequest() async throws {
        let upstream = try await Upstream(count: 2)
        let site = try site(feed: upstream.feedURL)
        _ = try await build(site)
        let blob = try blob(ofFirstPhotoIn: site)
        try FileTampering.flipByte(in: blob)
        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache/v1/renditions"))
        upstream.server.resetCounts()

        let result = try await build(site, BuildOptions(offline: true))

        #expect(upstream.server.requests.isEmpty, "--offline sends nothing, even to repair")
        #expect(result.report.counts.failed == 1)
        #expect(result.report.failures.first?.cause == "not in the cache (--offline)")
        #expect(
            result.report.failures.first?.message.contains("the cached copy is damaged") == true,
            "\(result.report.failures)")
        try await upstream.server.shutdown()
    }

    @Test func aCachedCopyAnsweredAgainWithNoStoreIsDeletedOnceUsed() async throws {
        let noStore = Mutex(false)
        let server = try await TestHTTPServer { request in
            // The same bytes under a new ETag, not to be stored: their thumbnails are made already.
            noStore.withLock { $0 }
                ? .photo(5, etag: "\"v2\"", extraHeaders: [("Cache-Control", "no-store")])
                : .revalidating(request, photo: 5, etag: "\"v1\"")
        }
        let site = try site(feed: "feed.json")
        try site.writeFeed([#"{"title": "a", "imageUrl": "\#(server.baseURL)/a.jpg"}"#])
        _ = try await build(site)
        noStore.withLock { $0 = true }

        let result = try await build(site)

        #expect(result.report.counts.downloaded == 1 && result.report.counts.failed == 0)
        #expect(result.report.counts.processed == 0, "the same bytes: their thumbnails are there")
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/tmp").isEmpty, "not kept until the next start")
        try await server.shutdown()
    }

    @Test func aNoStoreBodyIsDeletedAsSoonAsItIsUsed() async throws {
        let upstream = try await Upstream(count: 3)
        upstream.setCacheControl("no-store")
        let site = try site(feed: upstream.feedURL)

        let result = try await build(site)

        #expect(result.report.counts.downloaded == 3 && result.report.counts.failed == 0)
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/tmp").isEmpty, "not kept until the next start")
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/blobs").isEmpty, "never stored")
        #expect(site.folder.allFiles(under: "public/images").count == 6)
        try await upstream.server.shutdown()
    }

    /// `downloads: original` with a `no-store` answer: the original, let go once its thumbnails
    /// were made, is fetched again to be published, then let go too; the next build finds it
    /// published and fetches it only for its thumbnails' sake.
    @Test func aNoStoreOriginalIsFetchedAgainToBePublished() async throws {
        let upstream = try await Upstream(count: 3)
        upstream.setCacheControl("no-store")
        let site = try site(feed: upstream.feedURL, extraConfig: "downloads: original\nlocation: exact")

        let result = try await build(site)

        #expect(result.report.counts.failed == 0 && result.report.warnings.isEmpty, "\(result.report.warnings)")
        #expect(upstream.photoRequests.count == 6, "each photo twice: for its thumbnails, then to publish it")
        let originals = site.folder.allFiles(under: "public/originals")
        #expect(originals.count == 3)
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/tmp").isEmpty, "not kept")
        #expect(site.folder.allFiles(under: ".gallerygen-cache/v1/blobs").isEmpty, "never stored")
        for path in originals {
            let hash = try FileDigest.sha256(of: site.folder.file("public/originals/\(path)")).hex
            #expect(path.hasPrefix(hash.prefix(20)), "\(path) holds its own bytes")
        }
        upstream.server.resetCounts()
        _ = try await build(site)
        #expect(upstream.photoRequests.count == 3)
        try await upstream.server.shutdown()
    }

    @Test func aRemoteFeedsErrorsSpeakOfTheFeed() async throws {
        let upstream = try await Upstream(count: 1)
        let site = try site(feed: upstream.server.baseURL + "/no-such-feed.json")

        let error = await #expect(throws: BuildError.self) { try await build(site) }

        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("404") && message.contains("check feed.url in gallery.yml"), "\(message)")
        #expect(!message.contains("image"), "\(message)")
        try await upstream.server.shutdown()
    }
}
