import Foundation
import GalleryCore
import Loading
import Rendering
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

/// The up-to-date check: a build that would write what is already there says so and stops,
/// and any change a full build would see makes a full build.
@Suite struct UpToDateTests {
    func site(feed: String, extraConfig: String = "") throws -> FixtureSite {
        try FixtureSite(feed: feed, title: "Fresh", extraConfig: extraConfig)
    }

    /// An upstream whose feed and photos stay fresh for an hour.
    func freshUpstream(count: Int) async throws -> Upstream {
        let upstream = try await Upstream(count: count)
        upstream.setCacheControl("max-age=3600")
        return upstream
    }

    func build(_ site: FixtureSite, _ options: BuildOptions = BuildOptions()) async throws -> BuildReport {
        try await SiteBuilder(siteDirectory: site.url, options: options).build().report
    }

    /// A fresh upstream and a site built once from it (the next build finds nothing changed).
    func builtOnce(count: Int = 3) async throws -> (Upstream, FixtureSite, first: BuildReport) {
        let upstream = try await freshUpstream(count: count)
        let site = try site(feed: upstream.feedURL)
        let first = try await build(site)
        #expect(!first.upToDate && first.counts.downloaded == count)
        return (upstream, site, first)
    }

    @Test func nothingChangedIsUpToDateWithoutARequestOrAWrite() async throws {
        let (upstream, site, first) = try await builtOnce()
        let before = try site.snapshot()
        let store = site.folder.file(".gallerygen-cache/v1/store.sqlite")
        let storeBytes = try Data(contentsOf: store)
        upstream.server.resetCounts()

        let report = try await build(site)

        #expect(report.upToDate)
        #expect(upstream.server.requests.isEmpty)
        // The counts a full rebuild of the same site reports: every URL fresh, every page in place.
        var expected = BuildReport().counts
        (expected.photos, expected.urls, expected.fresh) = (3, 3, 3)
        expected.pagesUnchanged = first.counts.pagesRendered + first.counts.pagesUnchanged
        #expect(report.counts == expected)
        #expect(report.failures.isEmpty && report.warnings.isEmpty && report.output == "public")
        #expect(report.seconds["check"] != nil && report.seconds["feed"] == nil)
        let after = try site.snapshot()
        #expect(before.mapValues(\.0) == after.mapValues(\.0) && before.mapValues(\.1) == after.mapValues(\.1))
        #expect(try Data(contentsOf: store) == storeBytes, "the store is not written")
        #expect(report.summary.contains("up to date"))
        try await upstream.server.shutdown()
    }

    @Test func aFileChangedInTheOutputIsPutBackByAFullBuild() async throws {
        let (upstream, site, _) = try await builtOnce()
        let page = site.folder.file("public/index.html")
        let original = try Data(contentsOf: page)
        let thumbnail = try #require(site.folder.allFiles(under: "public/images").first)
        let thumbnailBytes = try Data(contentsOf: site.folder.file("public/images/\(thumbnail)"))

        try Data("edited by hand".utf8).write(to: page)
        let repaired = try await build(site)
        #expect(!repaired.upToDate && repaired.counts.filesWritten == 1)
        #expect(try Data(contentsOf: page) == original)
        #expect(try await build(site).upToDate, "and up to date again")

        try FileManager.default.removeItem(at: site.folder.file("public/images/\(thumbnail)"))
        #expect(try await !build(site).upToDate)
        #expect(try Data(contentsOf: site.folder.file("public/images/\(thumbnail)")) == thumbnailBytes)
        #expect(try await build(site).upToDate)
        try await upstream.server.shutdown()
    }

    @Test func aChangedConfigThemeOrOptionMeansAFullBuild() async throws {
        let (upstream, site, _) = try await builtOnce()
        try site.folder.write(
            "title: Renamed\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")
        let renamed = try await build(site)
        #expect(!renamed.upToDate && renamed.counts.pagesRendered > 0)
        #expect(try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8).contains("Renamed"))
        #expect(try await build(site).upToDate)

        // The site's own theme: a template edited.
        let theme = try #require(SiteRenderer.builtInTheme)
        try FileManager.default.copyItem(at: theme, to: site.folder.file("theme"))
        try site.folder.write(
            "title: Renamed\nfeed: \(upstream.feedURL)\ntemplates: theme\nimages:\n  widths: [48, 96]\n",
            to: "gallery.yml")
        #expect(try await !build(site).upToDate)
        #expect(try await build(site).upToDate)
        let template = site.folder.file("theme/page.mustache")
        try (String(contentsOf: template, encoding: .utf8) + "\n<!-- edited -->\n").write(
            to: template, atomically: false, encoding: .utf8)
        #expect(try await !build(site).upToDate)
        #expect(try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8).contains("edited"))

        // --full builds in full, and leaves a record for the next build.
        let full = try await build(site, BuildOptions(full: true))
        #expect(!full.upToDate && full.counts.pagesUnchanged > 0 && full.counts.filesWritten == 0)
        #expect(try await build(site).upToDate)

        // --refresh asks every URL again (and, every answer a 304, ends up to date); --output
        // elsewhere is another folder.
        upstream.server.resetCounts()
        let refreshed = try await build(site, BuildOptions(refresh: true))
        #expect(refreshed.upToDate && upstream.photoRequests.count == 3)
        let elsewhere = site.folder.file("elsewhere").path
        #expect(try await !build(site, BuildOptions(output: elsewhere)).upToDate)
        try await upstream.server.shutdown()
    }

    @Test func aRefreshWhoseAnswersChangeNothingAsksEveryURLAndWritesNothing() async throws {
        let (upstream, site, first) = try await builtOnce()
        let before = try site.snapshot()
        upstream.server.resetCounts()

        let report = try await build(site, BuildOptions(refresh: true))

        #expect(report.upToDate)
        #expect(upstream.photoRequests.count == 3 && upstream.photoRequests.allSatisfy(\.isConditional))
        var expected = BuildReport().counts
        (expected.photos, expected.urls, expected.notModified) = (3, 3, 3)
        expected.requests = 4  // and the feed's
        expected.pagesUnchanged = first.counts.pagesRendered + first.counts.pagesUnchanged
        #expect(report.counts == expected)
        #expect(report.failures.isEmpty && report.warnings.isEmpty)
        #expect(report.seconds["render"] == nil && report.seconds["write"] == nil)
        let after = try site.snapshot()
        #expect(before.mapValues(\.0) == after.mapValues(\.0) && before.mapValues(\.1) == after.mapValues(\.1))
        #expect(report.summary.contains("up to date: 4 requests (3 × 304)"))
        // It vouched for the site again: the next build sends nothing.
        upstream.server.resetCounts()
        #expect(try await build(site).upToDate && upstream.server.requests.isEmpty)
        try await upstream.server.shutdown()
    }

    @Test func aRefreshThatFindsAChangeBuildsInFullAndVouchesForWhatItMade() async throws {
        let (upstream, site, _) = try await builtOnce()
        upstream.change(2)
        let changed = try await build(site, BuildOptions(refresh: true))
        #expect(!changed.upToDate && changed.counts.downloaded == 1 && changed.counts.notModified == 2)
        #expect(changed.counts.processed == 1 && changed.counts.filesWritten > 0)
        // A refresh that built leaves a record like any full build.
        upstream.server.resetCounts()
        #expect(try await build(site).upToDate && upstream.server.requests.isEmpty)

        // The output edited since: the answers change nothing, but the page is put back.
        let page = site.folder.file("public/index.html")
        let original = try Data(contentsOf: page)
        try Data("edited by hand".utf8).write(to: page)
        let repaired = try await build(site, BuildOptions(refresh: true))
        #expect(!repaired.upToDate && repaired.counts.notModified == 3 && repaired.counts.filesWritten == 1)
        #expect(try Data(contentsOf: page) == original)

        // A new intro: built in full though every answer is a 304.
        try site.folder.write("A new intro.\n", to: "index.md")
        let introduced = try await build(site, BuildOptions(refresh: true))
        #expect(!introduced.upToDate && introduced.counts.pagesRendered > 0)
        #expect(try String(contentsOf: page, encoding: .utf8).contains("A new intro."))

        // Another setting: built in full though every answer is a 304.
        try site.folder.write(
            "title: Renamed\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48, 96]\n", to: "gallery.yml")
        let renamed = try await build(site, BuildOptions(refresh: true))
        #expect(!renamed.upToDate && renamed.counts.notModified == 3 && renamed.counts.pagesRendered > 0)
        try await upstream.server.shutdown()
    }

    @Test func aLocalFeedFileIsReadForItsContent() async throws {
        let upstream = try await freshUpstream(count: 2)
        let site = try site(feed: "feed.json")
        let entries = (1...2).map {
            #"{"title": "Photo \#($0)", "imageUrl": "\#(upstream.server.baseURL)/photos/\#($0).jpg"}"#
        }
        try site.writeFeed(entries)
        #expect(try await !build(site).upToDate)
        #expect(try await build(site).upToDate)
        try site.writeFeed(entries.reversed())
        let reordered = try await build(site)
        #expect(!reordered.upToDate && reordered.counts.pagesRendered > 0)
        #expect(try await build(site).upToDate)
        try await upstream.server.shutdown()
    }

    @Test func aBuildThatFailedOrWarnedVouchesForNothing() async throws {
        // A photo that failed is asked for again by the next build.
        let upstream = try await freshUpstream(count: 2)
        upstream.setExtraEntries([#"{"title": "gone", "imageUrl": "photos/missing.jpg"}"#])
        let site = try site(feed: upstream.feedURL)
        #expect(try await build(site).counts.failed == 1)
        upstream.server.resetCounts()
        let again = try await build(site)
        #expect(!again.upToDate && again.counts.failed == 1)
        #expect(upstream.server.count("/photos/missing.jpg") == 1)
        try await upstream.server.shutdown()
    }

    @Test func aBuildThatStopsHalfwayTakesBackWhatTheLastOneVouchedFor() async throws {
        let (upstream, site, _) = try await builtOnce()
        // An intro over its limit fails the build at the render step, after the check.
        let intro = site.folder.file("index.md")
        let original = try? Data(contentsOf: intro)
        try site.folder.write(String(repeating: "A long intro. ", count: 4_000), to: "index.md")
        await #expect(throws: BuildError.self) { try await build(site) }
        // Everything as it was: still a full build, for the record was taken back first.
        if let original { try original.write(to: intro) } else { try FileManager.default.removeItem(at: intro) }
        #expect(try await !build(site).upToDate)
        #expect(try await build(site).upToDate)
        try await upstream.server.shutdown()
    }

    /// Time is moved on by the build's clock, not slept through.
    @Test func onceAURLIsNoLongerFreshTheBuildAsksAgain() async throws {
        let upstream = try await Upstream(count: 2)
        upstream.setCacheControl("max-age=60")
        let site = try site(feed: upstream.feedURL)
        var options = BuildOptions()
        options.clock = WallClock.stopped(at: Date())
        _ = try await build(site, options)
        options.clock.advance(by: 59)
        upstream.server.resetCounts()
        #expect(try await build(site, options).upToDate, "still fresh a second before it ends")
        #expect(upstream.server.requests.isEmpty)
        options.clock.advance(by: 2)
        let revalidated = try await build(site, options)
        #expect(!revalidated.upToDate && revalidated.counts.notModified == 2)
        #expect(upstream.photoRequests.allSatisfy(\.isConditional) && upstream.photoRequests.count == 2)
        try await upstream.server.shutdown()
    }

    @Test func thumbnailsGoneFromTheCacheAreMadeAgain() async throws {
        let (upstream, site, _) = try await builtOnce()
        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache/v1/renditions"))
        let remade = try await build(site)
        #expect(!remade.upToDate && remade.counts.processed == 3 && remade.counts.filesWritten == 0)
        try await upstream.server.shutdown()
    }

    /// Review findings: what the build read is what it vouches for, whatever changes while it runs.
    @Test func aTemplateSavedWhileTheBuildRunsIsSeenByTheNextOne() async throws {
        let upstream = try await freshUpstream(count: 2)
        let site = try site(feed: upstream.feedURL, extraConfig: "templates: theme")
        try FileManager.default.copyItem(
            at: try #require(SiteRenderer.builtInTheme), to: site.folder.file("theme"))
        // The photos answer slowly: the template is edited once the build has asked for one
        // (its templates long read), and before it ends.
        upstream.setDelay(.milliseconds(1500), from: 1)
        let running = Task { try await build(site) }
        await upstream.server.seen { seen in seen.requests.contains { $0.path.hasPrefix("/photos/") } }
        let template = site.folder.file("theme/page.mustache")
        try (String(contentsOf: template, encoding: .utf8) + "\n<!-- saved while building -->\n").write(
            to: template, atomically: false, encoding: .utf8)
        _ = try await running.value
        upstream.setDelay(nil, from: 1)

        let next = try await build(site)
        #expect(!next.upToDate)
        #expect(try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8).contains("saved while"))
        #expect(try await build(site).upToDate)
        try await upstream.server.shutdown()
    }

    @Test func anotherSigningKeyOfTheSameLengthMeansAFullBuild() async throws {
        let upstream = try await freshUpstream(count: 2)
        let site = try site(feed: upstream.feedURL)
        let (first, second) = (SigningKey(secret: "key one"), SigningKey(secret: "key two"))
        _ = try await build(site, BuildOptions(signingKey: first))
        #expect(try await build(site, BuildOptions(signingKey: first)).upToDate)
        #expect(try await !build(site, BuildOptions(signingKey: second)).upToDate, "records signed anew")
        try await upstream.server.shutdown()
    }

    @Test func aWarningOfTheBuildsLastStepsVouchesForNothing() async throws {
        // Over cache_limit is said once the cache is evicted, after the site is written.
        let upstream = try await freshUpstream(count: 2)
        let site = try site(feed: upstream.feedURL, extraConfig: "cache_limit: 1B")
        let first = try await build(site)
        #expect(first.warnings.contains { $0.contains("over cache_limit") })
        #expect(try await !build(site).upToDate)
        try await upstream.server.shutdown()
    }
}
