import Foundation
import GalleryCore
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

/// A WebDAV folder as the feed (`format: webdav`) on a real WebDAV server (WsgiDAV) behind HTTP
/// Basic, as a Nextcloud or ownCloud share is: PROPFIND a folder at a time, subfolders as
/// albums, what is no image or hidden passed over, an unchanged tree costing one PROPFIND a
/// folder and no image request, a changed file picked up by its ETag, a wrong password refused.
@Suite(.timeLimit(.minutes(3))) struct WebDAVFeedTests {
    static let password = "pa ss+wörd"

    func build(_ site: FixtureSite, password: String = Self.password) async throws -> BuildResult {
        var options = BuildOptions()
        options.environment = ["DAV_PASSWORD": password]
        return try await SiteBuilder(siteDirectory: site.url, options: options).build()
    }

    @Test func aSharedFolderIsReadFolderByFolderWithItsSubfoldersAsAlbums() async throws {
        let dav = try await WebDAVServer.started(user: "ana", password: Self.password)
        let files: [(String, Int)] = [
            ("gallery/a.jpg", 1), ("gallery/b.jpg", 2), ("gallery/Iceland/falls 1.jpg", 3),
            ("gallery/Iceland/Vestfirðir.jpg", 4), ("gallery/Iceland/Westfjords/x.jpg", 5),
            ("gallery/2019/c.jpg", 6), ("gallery/.thumbs/y.jpg", 7), ("other/d.jpg", 8),
        ]
        for (path, photo) in files { try dav.put(Data(TestPhotos.jpeg(photo)), at: path) }
        try dav.put(Data("notes".utf8), at: "gallery/Iceland/notes.txt")
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            """
            title: Shared
            feed:
              url: \(dav.url)gallery
              format: webdav
              auth: {basic: ana, env: DAV_PASSWORD}
            images:
              widths: [48]
            """, to: "gallery.yml")
        let first = try await build(site)

        #expect(first.report.counts.photos == 6 && first.report.counts.failed == 0, "\(first.report.counts)")
        // Four folders listed (gallery, 2019, Iceland, Iceland/Westfjords) and six photos.
        #expect(first.report.counts.requests == 10 && first.report.counts.downloaded == 6)
        let manifest = try String(contentsOf: site.folder.file("public/gallery-manifest.json"), encoding: .utf8)
        let order = [
            "/gallery/a.jpg", "/gallery/b.jpg", "/gallery/2019/c.jpg", "/gallery/Iceland/Vestfir%C3%B0ir.jpg",
            "/gallery/Iceland/falls%201.jpg", "/gallery/Iceland/Westfjords/x.jpg",
        ]
        let positions = order.map { manifest.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "every photo: \(manifest.prefix(400))")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "a folder feed's order")
        #expect(!manifest.contains("other/d.jpg") && !manifest.contains(".thumbs") && !manifest.contains("notes"))
        let index = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(index.contains(">Iceland<") && index.contains(">2019<"))

        // Nothing changed: one PROPFIND a folder; the listed ETags vouch for the cached photos.
        let again = try await build(site)
        #expect(again.report.counts.requests == 4 && again.report.counts.fresh == 6, "\(again.report.counts)")
        #expect(again.report.counts.processed == 0 && again.report.counts.filesWritten == 0)
        // One file replaced: its new ETag has it loaded again, alone.
        try dav.put(Data(TestPhotos.jpeg(9)), at: "gallery/Iceland/falls 1.jpg")
        // The ETag holds the time to the second: the file is dated a minute on, not waited for.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 60)],
            ofItemAtPath: dav.root.appendingPathComponent("gallery/Iceland/falls 1.jpg").path)
        let changed = try await build(site)
        #expect(
            changed.report.counts.downloaded == 1 && changed.report.counts.processed == 1, "\(changed.report.counts)")

        // A wrong password: refused, and said so.
        let error = await #expect(throws: BuildError.self) { try await build(site, password: "wrong") }
        #expect("\(error.map { "\($0)" } ?? "")".contains("401"), "\(String(describing: error))")
        withExtendedLifetime(dav) {}
    }
}
