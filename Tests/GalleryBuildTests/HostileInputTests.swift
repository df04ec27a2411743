import Foundation
import GalleryCore
import GalleryJSON
import Loading
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Builds of sites that someone set out to break: links out of the site, pipes, huge or
/// poisonous text, names at the file system's limits, output and cache in each other's way,
/// damaged or blocked cache and output files.
@Suite(.timeLimit(.minutes(2))) struct HostileInputTests {
    func build(_ site: FixtureSite) async throws -> BuildResult {
        try await SiteBuilder(siteDirectory: site.url, options: BuildOptions(signingKey: nil)).build()
    }

    func buildError(_ site: FixtureSite) async -> BuildError? {
        do {
            _ = try await build(site)
            return nil
        } catch {
            return error as? BuildError
        }
    }

    /// A site whose feed is its `photos` folder.
    func folderSite(count: Int = 2, extraConfig: String = "") throws -> FixtureSite {
        let site = try FixtureSite(count: count)
        try site.folder.write(
            "title: Folder\nfeed: photos\nimages:\n  widths: [64]\n\(extraConfig)\n", to: "gallery.yml")
        return site
    }

    func manifest(_ site: FixtureSite) throws -> Manifest {
        try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
    }

    // MARK: Links and pipes

    @Test func aLinkOutOfTheSiteIsNotPublishedUnlessAllowed() async throws {
        let site = try folderSite()
        let outside = try TemporaryDirectory("outside")
        try TestImage(width: 40, height: 30, fill: .white).saveJPEG(to: outside.file("secret.jpg"))
        try TestImage(width: 40, height: 30, fill: .white).saveJPEG(to: outside.file("private/inner.jpg"))
        let links = FileManager.default
        try links.createSymbolicLink(
            at: site.folder.file("photos/secret.jpg"), withDestinationURL: outside.file("secret.jpg"))
        try links.createSymbolicLink(
            at: site.folder.file("photos/private"), withDestinationURL: outside.file("private"))
        // A link that stays in the site folder is followed.
        try links.createSymbolicLink(
            at: site.folder.file("photos/again.jpg"), withDestinationURL: site.folder.file("photos/p1.jpg"))

        let result = try await build(site)
        let sources = try manifest(site).photos.map(\.source)
        #expect(sources == ["photos/again.jpg", "photos/p1.jpg", "photos/p2.jpg"], "\(sources)")
        let skipped = result.report.failures.map(\.message)
        #expect(skipped.contains { $0.contains("private: a symbolic link to a place outside the site folder") })
        #expect(skipped.contains { $0.contains("secret.jpg: a symbolic link to a place outside the site folder") })

        try site.folder.write(
            "title: Folder\nfeed: photos\nimages:\n  widths: [64]\nfollow_symlinks: true\n", to: "gallery.yml")
        _ = try await build(site)
        #expect(try manifest(site).photos.map(\.source).contains("photos/secret.jpg"))
        #expect(try manifest(site).photos.map(\.source).contains("photos/private/inner.jpg"))
    }

    @Test func aPipeNamedLikeAPhotoIsSkippedNeverOpened() async throws {
        let site = try folderSite()
        #expect(mkfifo(site.folder.file("photos/pipe.jpg").path, 0o644) == 0)
        let result = try await build(site)
        #expect(result.report.counts.photos == 2)
        #expect(result.report.failures.contains { $0.message.contains("pipe.jpg: not a plain file") })

        // A JSON feed naming it, and a feed file that is a pipe: errors, not a hang.
        let listed = try FixtureSite(count: 1, extraEntries: [#"{"title": "pipe", "imageUrl": "photos/pipe.jpg"}"#])
        #expect(mkfifo(listed.folder.file("photos/pipe.jpg").path, 0o644) == 0)
        let listedResult = try await build(listed)
        #expect(listedResult.report.counts.failed == 1)
        #expect(listedResult.report.failures.contains { $0.message.contains("not a plain file") })

        let pipedFeed = try FixtureSite(count: 1)
        try FileManager.default.removeItem(at: pipedFeed.folder.file("feed.json"))
        #expect(mkfifo(pipedFeed.folder.file("feed.json").path, 0o644) == 0)
        let error = await buildError(pipedFeed)
        #expect(
            error?.code == .feed && error?.description.contains("not a plain file") == true,
            "\(String(describing: error))")
    }

    // MARK: Sizes and names

    @Test func anIntroOfAMegabyteIsRefusedByName() async throws {
        let site = try FixtureSite(count: 1)
        try site.folder.write(String(repeating: "[a](b ", count: 200_000), to: "index.md")
        let error = await buildError(site)
        #expect(error?.code == .intro, "\(String(describing: error))")
        #expect(error?.description.contains("index.md: the intro is") == true, "\(String(describing: error))")
        #expect(error?.description.contains("at most 32 KB") == true)
    }

    @Test func longAlbumNamesStayWithinTheFileSystemsLimit() async throws {
        let site = try folderSite(count: 0)
        let stem = String(repeating: "Sommerferien an der Nordsee ", count: 8)
        for (index, ending) in ["eins", "zwei"].enumerated() {
            var image = TestImage(width: 60, height: 40, fill: .white)
            image.fillRect(x: 5 * index, y: 5, width: 10, height: 10, color: TestImage.Color(200, 20, 20))
            let folder = stem + ending
            try image.saveJPEG(to: site.folder.file("photos/\(folder)/photo.jpg"))
        }
        let result = try await build(site)
        #expect(result.report.counts.photos == 2 && result.report.counts.failed == 0)
        let files = site.folder.allFiles(under: "public")
        #expect(files.allSatisfy { $0.split(separator: "/").allSatisfy { $0.utf8.count <= 255 } })
        let albums = files.filter { $0.hasPrefix("album-") }
        #expect(albums.count == 2 && Set(albums).count == 2, "\(albums)")
        #expect(albums.allSatisfy { $0.utf8.count <= 100 }, "\(albums)")
    }

    @Test func temporaryNamesStayWithinTheLimit() {
        let longest = String(repeating: "é", count: 127) + "a"
        #expect(longest.utf8.count == 255)
        let name = AtomicFile.temporaryName(for: longest)
        #expect(name.utf8.count <= 255 && AtomicFile.isTemporaryName(name))
        #expect(AtomicFile.temporaryName(for: longest) != name, "unique per call")
        #expect(AtomicFile.temporaryName(for: "short.html").hasSuffix("-short.html"))
    }

    // MARK: Text

    @Test func controlCharactersNeverReachThePagesOrTheFeeds() async throws {
        let noncharacters = [0xFFFE, 0xFFFF, 0xFDD0].compactMap(Unicode.Scalar.init).map(String.init).joined()
        let poison = "Bad\u{0}title\u{1}with\u{7F}\u{9B}controls" + noncharacters
        let site = try FixtureSite(count: 2)
        try site.folder.write(
            """
            title: Poison
            feed: {url: feed.json, fields: {image: imageUrl, title: title, album: album}}
            images: {widths: [64]}
            base_url: https://example.com/g/
            """, to: "gallery.yml")
        try site.writeFeed([
            #"{"title": \#(FixtureSite.jsonString(poison)), "imageUrl": "photos/p1.jpg", "album": "A\u0000lbum"}"#,
            #"{"title": "Tab\there\nand line", "imageUrl": "photos/p2.jpg", "album": " \u200B "}"#,
        ])
        _ = try await build(site)
        for path in site.folder.allFiles(under: "public")
        where [".html", ".xml", ".json"].contains(where: { path.hasSuffix($0) }) {
            let text = try String(contentsOf: site.folder.file("public/\(path)"), encoding: .utf8)
            let bad = text.unicodeScalars.first {
                ($0.value < 0x20 && !["\t", "\n", "\r"].contains($0)) || (0x7F...0x9F).contains($0.value)
                    || $0.properties.isNoncharacterCodePoint
            }
            #expect(bad == nil, "\(path) holds U+\(String(bad?.value ?? 0, radix: 16))")
        }
        #expect(
            try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8).contains(
                "Badtitlewithcontrols"))
        for feed in ["feed.xml", "sitemap.xml"] {
            let parser = XMLParser(data: try Data(contentsOf: site.folder.file("public/\(feed)")))
            #expect(parser.parse(), "\(feed) is well-formed XML: \(String(describing: parser.parserError))")
        }
        // The album that shows nothing has a name that shows.
        let index = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(index.contains(">\(Photo.untitledAlbum)<"), "\(index)")
    }

    // MARK: Folders in each other's way

    @Test func anOutputInsideTheFeedFolderOrACacheInsideTheOutputIsRefused() async throws {
        let site = try folderSite(extraConfig: "output: photos/site")
        let inFeed = await buildError(site)
        #expect(inFeed?.code == .configuration, "\(String(describing: inFeed))")
        #expect(inFeed?.description.contains("is inside the feed folder") == true)
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("photos/site").path))

        try site.folder.write(
            "title: Folder\nfeed: photos\nimages:\n  widths: [64]\ncache: public/.cache\n", to: "gallery.yml")
        let inOutput = await buildError(site)
        #expect(inOutput?.code == .configuration, "\(String(describing: inOutput))")
        #expect(inOutput?.description.contains("inside the output folder") == true)
    }

    // MARK: Damaged and blocked files

    /// Every thumbnail in the output hashes to what the manifest says of it.
    func expectOutputMatchesManifest(_ site: FixtureSite, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        for photo in try manifest(site).photos {
            for rendition in photo.renditions {
                let file = site.folder.file("public/\(rendition.path)")
                #expect(
                    try FileDigest.sha256(of: file).hex == rendition.sha256, "\(rendition.path)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    /// One byte changed in place by a plain write: same size, same inode, a new modification
    /// time. (A hand that also puts the time back is caught only by hashing every file, which a
    /// build does not do: the stamps are what the pages are trusted by too.)
    static func damage(_ file: URL) throws {
        let handle = try FileHandle(forUpdating: file)
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        let byte = try handle.read(upToCount: 1) ?? Data([0])
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data([byte[byte.startIndex] ^ 0x55]))
    }

    @Test func aThumbnailDamagedInPlaceIsMadeOrCopiedAgain() async throws {
        let site = try FixtureSite(count: 2)
        _ = try await build(site)
        let photo = try #require(try manifest(site).photos.first)
        let rendition = try #require(photo.renditions.last)
        let cached = try #require(
            site.folder.allFiles(under: ".gallerygen-cache/v1/renditions").first { $0.hasSuffix(rendition.fileName) })
        let cacheFile = site.folder.file(".gallerygen-cache/v1/renditions/\(cached)")
        let outputFile = site.folder.file("public/\(rendition.path)")
        try Self.damage(cacheFile)
        try Self.damage(outputFile)
        #expect(try FileDigest.sha256(of: outputFile).hex != rendition.sha256)

        let result = try await build(site)
        #expect(result.report.counts.failed == 0)
        #expect(result.report.counts.processed == 1, "the damaged set is made again: \(result.report.counts)")
        #expect(try FileDigest.sha256(of: cacheFile).hex == rendition.sha256)
        try expectOutputMatchesManifest(site)

        // Only the output's copy damaged: copied again from the cache, nothing made.
        try Self.damage(outputFile)
        let again = try await build(site)
        #expect(again.report.counts.processed == 0 && again.report.counts.filesWritten >= 1)
        try expectOutputMatchesManifest(site)

        // Untouched: neither hashed again (stamps) nor rewritten.
        let settled = try await build(site)
        #expect(settled.report.counts.filesWritten == 0)
    }

    @Test func aFolderInTheWayOfACacheOrOutputFileIsRemoved() async throws {
        let site = try FixtureSite(count: 2)
        _ = try await build(site)
        let expected = try site.snapshot().mapValues(\.0)
        let cacheFolder = site.folder.file(".gallerygen-cache/v1/renditions")
        let cached = try #require(
            site.folder.allFiles(under: ".gallerygen-cache/v1/renditions").first {
                $0.hasSuffix(".webp")
            })
        let thumbnail = try #require(try manifest(site).photos.first?.renditions.first)
        for blocked in [cacheFolder.appendingPathComponent(cached), site.folder.file("public/\(thumbnail.path)")] {
            try FileManager.default.removeItem(at: blocked)
            try FileManager.default.createDirectory(
                at: blocked.appendingPathComponent("in-the-way"), withIntermediateDirectories: true)
        }
        // The cache's own folders: a file where one should be.
        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache/v1/blobs"))
        try site.folder.write("not a folder", to: ".gallerygen-cache/v1/blobs")

        let result = try await build(site)
        #expect(result.report.counts.failed == 0, "\(result.report.failures.map(\.message))")
        #expect(try site.snapshot().mapValues(\.0) == expected)
        #expect(FileStatus(cacheFolder.appendingPathComponent(cached))?.isRegularFile == true)
        #expect(FileStatus(site.folder.file(".gallerygen-cache/v1/blobs"))?.isDirectory == true)
    }

    @Test func publishedMessagesNameNoFolderOfTheBuildMachine() throws {
        let site = try FixtureSite(count: 1)
        let config = try ConfigLoader().config(inSite: site.url)
        var outside = config
        outside.cache = "/var/tmp/gallerygen-cache-\(UUID().uuidString)"
        for config in [config, outside] {
            let layout = try SiteLayout(config: config, siteDirectory: site.url)
            let message = layout.publishedMessage(
                "cannot write \(layout.cacheDirectory.path)/v1/blobs/ab (in \(layout.siteDirectory.path)) "
                    + "to \(layout.outputDirectory.path)/images")
            #expect(!message.contains(layout.siteDirectory.path), "\(message)")
            #expect(!message.contains(layout.cacheDirectory.path), "\(message)")
            #expect(!message.contains("/var/tmp") && !message.contains(NSTemporaryDirectory()), "\(message)")
        }
    }

    /// A failure of the building machine (its cache, its disk) is grouped without the photo's
    /// host: "5 photos failed (cache error at 127.0.0.1)" blamed a server that did nothing wrong.
    @Test func failuresOfThisMachineAreNotGroupedUnderThePhotosHost() throws {
        let photo = try #require(URL(string: "http://Photos.Example.org/a.jpg"))
        #expect(FailureCause.host(of: photo, cause: "HTTP 404") == "photos.example.org")
        #expect(FailureCause.host(of: photo, cause: "timed out") == "photos.example.org")
        for cause in ["cache error", "cannot write thumbnails", "libvips failed to start"] {
            #expect(FailureCause.host(of: photo, cause: cause) == nil, "\(cause)")
        }
        #expect(FailureCause.host(of: URL(fileURLWithPath: "/site/photos/a.jpg"), cause: "not an image") == nil)
    }
}
