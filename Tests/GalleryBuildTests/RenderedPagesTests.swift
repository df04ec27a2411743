import BuildStore
import Foundation
import GalleryCore
import Rendering
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

/// A rebuild renders only the grid and photo pages whose inputs changed, or whose file in the
/// output is no longer the one the previous build left; the site it writes is the same bytes as
/// a build from nothing.
@Suite struct RenderedPagesTests {
    /// Every build here renders: on a clock set before the site's files were written, none of
    /// their stamps is settled (``SourceStamp/isSettled(at:)``), so no build vouches for the site
    /// and none ends up to date.
    func build(_ site: FixtureSite, output: String? = nil) async throws -> BuildReport {
        var options = BuildOptions()
        options.clock = .stopped(at: Date(timeIntervalSince1970: 1_000_000_000))
        options.output = output.map { site.folder.file($0).path }
        return try await SiteBuilder(siteDirectory: site.url, options: options).build().report
    }

    /// The output's bytes by path.
    func bytes(_ site: FixtureSite, _ output: String = "public") throws -> [String: Data] {
        try site.snapshot(of: output).mapValues(\.0)
    }

    /// Photo pages: one per photo; grid pages: `index.html` (the fixtures have no albums).
    func photoPage(_ site: FixtureSite, title: String) throws -> String {
        let pages = site.folder.allFiles(under: "public/photos")
        let slug = title.lowercased().replacingOccurrences(of: " ", with: "-") + "-"
        return try #require(pages.first { $0.hasPrefix(slug) }, "\(pages)")
    }

    @Test func anUnchangedRebuildRendersNoPageAndWritesTheSameBytes() async throws {
        let site = try FixtureSite(count: 4)
        let first = try await build(site)
        #expect(first.counts.pagesRendered == 5 && first.counts.pagesUnchanged == 0, "\(first.counts)")
        let before = try site.snapshot()

        let second = try await build(site)

        #expect(second.counts.pagesRendered == 0 && second.counts.pagesUnchanged == 5, "\(second.counts)")
        #expect(second.counts.filesWritten == 0)
        let after = try site.snapshot()
        #expect(after.keys.sorted() == before.keys.sorted())
        for (path, (data, inode)) in before {
            #expect(after[path]?.0 == data && after[path]?.1 == inode, "\(path) was rewritten")
        }
        // The same bytes as a build from nothing into another folder (the record is for `public`).
        let fresh = try await build(site, output: "elsewhere")
        #expect(fresh.counts.pagesRendered == 5 && fresh.counts.pagesUnchanged == 0, "\(fresh.counts)")
        let elsewhere = try bytes(site, "elsewhere")
        let original = try bytes(site)
        #expect(elsewhere.keys.sorted() == original.keys.sorted())
        for (path, data) in original where elsewhere[path] != data {
            Issue.record(
                "\(path) differs:\n\(String(decoding: data, as: UTF8.self))\n---\n\(String(decoding: elsewhere[path] ?? Data(), as: UTF8.self))"
            )
        }
    }

    @Test func aPageEditedReplacedOrRemovedInTheOutputIsRenderedAgain() async throws {
        let site = try FixtureSite(count: 4)
        _ = try await build(site)
        let before = try bytes(site)
        let edited = try "photos/" + photoPage(site, title: "Photo 2")
        let removed = try "photos/" + photoPage(site, title: "Photo 3")
        // Appended to in place (same inode, new size and time), removed, and replaced by a copy
        // of itself (same bytes, new inode): each is rendered again.
        let handle = try FileHandle(forWritingTo: site.folder.file("public/\(edited)"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("<!-- edited -->".utf8))
        try handle.close()
        try FileManager.default.removeItem(at: site.folder.file("public/\(removed)"))
        let index = site.folder.file("public/index.html")
        let copy = site.folder.file("index-copy")
        try FileManager.default.copyItem(at: index, to: copy)
        #expect(rename(copy.path, index.path) == 0)

        let report = try await build(site)

        #expect(report.counts.pagesRendered == 3 && report.counts.pagesUnchanged == 2, "\(report.counts)")
        #expect(try bytes(site) == before)
    }

    @Test func aChangedTitleRendersItsPageItsNeighboursAndItsGridPage() async throws {
        let site = try FixtureSite(count: 5)
        _ = try await build(site)
        let untouched = try ["Photo 1", "Photo 5"].map { try "photos/" + photoPage(site, title: $0) }
        let inodes = try untouched.map { try FixtureSite.inode(of: site.folder.file("public/\($0)")) }

        var feed = try String(contentsOf: site.folder.file("feed.json"), encoding: .utf8)
        feed = feed.replacingOccurrences(of: "\"Photo 3\"", with: "\"Harbour at dusk\"")
        try site.folder.write(feed, to: "feed.json")
        let report = try await build(site)

        // The photo's own page (a new name: its title is in it), the pages of photos 2 and 4
        // (their links to it name it) and the grid page; photos 1 and 5 are left as they were.
        #expect(report.counts.pagesRendered == 4 && report.counts.pagesUnchanged == 2, "\(report.counts)")
        for (path, inode) in zip(untouched, inodes) {
            #expect(try FixtureSite.inode(of: site.folder.file("public/\(path)")) == inode, "\(path)")
        }
        let rebuilt = try bytes(site)
        _ = try await build(site, output: "fresh")
        #expect(try bytes(site, "fresh") == rebuilt)
        #expect(rebuilt.keys.contains { $0.hasPrefix("photos/harbour-at-dusk") })
        #expect(!rebuilt.keys.contains { $0.hasPrefix("photos/photo-3") })
    }

    @Test func aChangedTemplateOrSettingRendersEveryPage() async throws {
        let site = try FixtureSite(count: 3)
        let builtIn = try #require(SiteRenderer.builtInTheme)
        try FileManager.default.copyItem(at: builtIn, to: site.folder.file("theme"))
        let config = try String(contentsOf: site.folder.file("gallery.yml"), encoding: .utf8)
        try site.folder.write(config + "\ntemplates: theme\n", to: "gallery.yml")
        _ = try await build(site)

        // A template that only the tiles use: every page is made with the theme, so all go.
        let tile = site.folder.file("theme/photo.mustache")
        try (String(contentsOf: tile, encoding: .utf8) + "{{! a note }}").write(
            to: tile, atomically: true, encoding: .utf8)
        let afterTemplate = try await build(site)
        #expect(afterTemplate.counts.pagesRendered == 4 && afterTemplate.counts.pagesUnchanged == 0)

        try site.folder.write(
            config.replacingOccurrences(of: "Test gallery", with: "Renamed") + "\ntemplates: theme\n", to: "gallery.yml"
        )
        let afterTitle = try await build(site)
        #expect(afterTitle.counts.pagesRendered == 4 && afterTitle.counts.pagesUnchanged == 0)
        #expect(try bytes(site)["index.html"].map { String(decoding: $0, as: UTF8.self) }?.contains("Renamed") == true)

        let settled = try await build(site)
        #expect(settled.counts.pagesRendered == 0 && settled.counts.pagesUnchanged == 4)
    }

    @Test func aWrongForeignOrDamagedRecordOnlyCostsARender() async throws {
        let site = try FixtureSite(count: 3)
        _ = try await build(site)
        let before = try bytes(site)
        let file = site.folder.file(".gallerygen-cache/v1/\(BuildStore.fileName)")
        func withStore<T>(_ body: (BuildStore) async throws -> T) async rethrows -> T {
            let store = BuildStore.open(at: file).store
            defer { store.close() }
            return try await body(store)
        }
        let record = try #require(try await withStore { try await $0.renderedPages() })
        #expect(record.output == site.folder.file("public").standardizedFileURL.path)
        #expect(
            record.pages.count == 4 + 6 && record.pages.keys.filter { $0.hasSuffix(".html") }.count == 4,
            "a row per page and a row per thumbnail (3 photos, 2 widths): \(record.pages.keys.sorted())")

        // A fingerprint that is not its page's, under the sources this build has: the pages in
        // place were made from these very sources, so none is even built to be compared.
        let page = try #require(record.pages.keys.first { $0.hasPrefix("photos/") })
        var wrong = try #require(record.pages[page])
        wrong.fingerprint = PageFingerprint(words: (0, 0, 0, 0))
        try await withStore { store in
            try await store.saveRenderedPages(
                output: record.output, sources: record.sources, changed: [(page, wrong)], removed: [],
                replacingAll: false)
        }
        var report = try await build(site)
        #expect(report.counts.pagesRendered == 0 && report.counts.pagesUnchanged == 4, "\(report.counts)")
        #expect(try bytes(site) == before)

        // The same under other sources (the feed changed since): every page is built and
        // compared, and that one rendered.
        try await withStore { store in
            try await store.saveRenderedPages(
                output: record.output, sources: PageFingerprint(words: (0, 0, 0, 0)), changed: [(page, wrong)],
                removed: [], replacingAll: false)
        }
        report = try await build(site)
        #expect(report.counts.pagesRendered == 1 && report.counts.pagesUnchanged == 3, "\(report.counts)")
        #expect(try bytes(site) == before)

        // A build into another folder: its record replaces this folder's.
        let elsewhere = try await build(site, output: "elsewhere")
        #expect(elsewhere.counts.pagesRendered == 4)
        report = try await build(site)
        #expect(report.counts.pagesRendered == 4, "the record described `elsewhere`")
        #expect(try bytes(site) == before)

        // A store that is garbage: set aside with a warning, and every page rendered.
        try Data("not a database, not at all".utf8).write(to: file)
        report = try await build(site)
        #expect(report.counts.pagesRendered == 4 && report.counts.pagesUnchanged == 0, "\(report.counts)")
        #expect(report.warnings.contains { $0.contains("not a gallerygen store") }, "\(report.warnings)")
        #expect(try bytes(site) == before)
        report = try await build(site)
        #expect(report.counts.pagesRendered == 0 && report.counts.pagesUnchanged == 4, "\(report.counts)")
    }

    @Test func aNoChangeRebuildWritesNothingToTheStore() async throws {
        let site = try FixtureSite(count: 3)
        _ = try await build(site)
        _ = try await build(site)
        let folder = site.folder.file(".gallerygen-cache/v1")
        let names = [BuildStore.fileName, BuildStore.fileName + "-wal"]
        let stamps = names.map {
            FileStatus(folder.appendingPathComponent($0)).map { [$0.size, $0.modifiedNanoseconds] }
        }
        #expect(stamps[0] != nil)
        // The text record of before the store is let go of (it only saved renders).
        let legacy = site.folder.file(".gallerygen-cache/rendered-pages")
        try Data("gallerygen rendered-pages 2\t\n".utf8).write(to: legacy)

        let report = try await build(site)

        #expect(report.counts.pagesRendered == 0 && report.counts.pagesUnchanged == 4)
        #expect(
            names.map { FileStatus(folder.appendingPathComponent($0)).map { [$0.size, $0.modifiedNanoseconds] } }
                == stamps)
        #expect(!FileManager.default.fileExists(atPath: legacy.path))
    }

    /// The files a build removes (those the last build published and this one does not make)
    /// come from the build store while the manifest is as that build left it: such a manifest
    /// is not read at all (here it is damaged in place, its time put back, and still the page of
    /// the photo that left the feed goes).
    @Test func theFilesToRemoveComeFromTheStoreWhileTheManifestIsAsItWasLeft() async throws {
        let site = try FixtureSite(count: 3)
        _ = try await build(site)
        let gone = try "photos/" + photoPage(site, title: "Photo 3")
        try FileTampering.flipByte(in: site.folder.file("public/\(Manifest.fileName)"), at: 0)
        try site.writeFeed(
            (1...2).map { #"{"title": "Photo \#($0)", "imageUrl": "photos/p\#($0).jpg"}"# })

        let report = try await build(site)

        #expect(report.counts.filesRemoved >= 1, "\(report.counts)")
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("public/\(gone)").path))
        _ = try await build(site, output: "fresh")
        #expect(try bytes(site) == bytes(site, "fresh"))
    }

    @Test func anAlbumNamedLikeAnothersSecondPageGetsANameOfItsOwn() async throws {
        // One photo a page: album "Trip" has a second page, `album-trip-2.html`, which would also
        // be the first page of album "Trip 2": two pages at one path, and a rebuild that kept one
        // and rendered the other wrote what no build from nothing writes.
        let site = try FixtureSite(count: 3, extraConfig: "page_size: 1")
        let albums = ["Trip", "Trip", "Trip 2"]
        func writeFeed(firstTitle: String) throws {
            try site.writeFeed(
                albums.enumerated().map { offset, album in
                    let title = offset == 0 ? firstTitle : "Photo \(offset + 1)"
                    return
                        #"{"id": \#(offset + 1), "title": "\#(title)", "url": "photos/p\#(offset + 1).jpg", "albumId": "\#(album)"}"#
                })
        }
        try writeFeed(firstTitle: "Photo 1")
        _ = try await build(site)
        try writeFeed(firstTitle: "Harbour")
        _ = try await build(site)
        _ = try await build(site, output: "fresh")
        #expect(try bytes(site) == bytes(site, "fresh"))
        let pages = try bytes(site).mapValues { String(decoding: $0, as: UTF8.self) }
        #expect(try #require(pages["album-trip-2.html"]).contains("Photo 2"))
        #expect(try #require(pages["album-trip-2-2.html"]).contains("Photo 3"))
    }
}
