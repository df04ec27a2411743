import Foundation
import GalleryCore
import GalleryJSON
import Reporting
import TestSupport
import Testing

@testable import GalleryBuild

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A folder feed's rebuild: nothing changed is up to date from the files' stamps alone, and every
/// change a photographer or a tool makes to the folder is seen (docs/guarantees.md, "What a
/// rebuild trusts").
@Suite struct FolderRebuildTests {
    /// A site whose feed is its `photos` folder: `p1.jpg`, `home/p2.jpg` and `trip/p3.jpg`.
    func folderSite() throws -> FixtureSite {
        let site = try FixtureSite(count: 3)
        for (name, album) in [("p2", "home"), ("p3", "trip")] {
            try FileManager.default.createDirectory(
                at: site.folder.file("photos/\(album)"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(
                at: site.folder.file("photos/\(name).jpg"), to: site.folder.file("photos/\(album)/\(name).jpg"))
        }
        try site.folder.write("title: Folder\nfeed: photos\nimages:\n  widths: [64]\n", to: "gallery.yml")
        return site
    }

    /// The files were written just now: the builds run on a clock 10 s on, so that their stamps
    /// are settled (``SourceStamp/isSettled(at:)``); each test moves it on as it changes a file.
    func build(_ site: FixtureSite, clock: WallClock, full: Bool = false) async throws -> BuildReport {
        var options = BuildOptions(full: full)
        options.clock = clock
        return try await SiteBuilder(siteDirectory: site.url, options: options).build().report
    }

    func laterClock() -> WallClock { .stopped(at: Date().addingTimeInterval(10)) }

    /// Moves the clock on to 10 s after now (at least 10 s on): the files just written are
    /// settled, however long the machine took to get here.
    static func settle(_ clock: WallClock) {
        clock.advance(by: max(10, Date().addingTimeInterval(10).timeIntervalSince(clock.now)))
    }

    /// Builds once, and checks that a second build is up to date, writing nothing.
    func builtAndUpToDate() async throws -> (FixtureSite, WallClock) {
        let site = try folderSite()
        let clock = laterClock()
        let first = try await build(site, clock: clock)
        #expect(!first.upToDate && first.failures.isEmpty && first.warnings.isEmpty, "\(first.warnings)")
        let before = try site.snapshot()
        let second = try await build(site, clock: clock)
        #expect(second.upToDate, "nothing changed in the folder")
        #expect(second.counts.photos == 3 && second.seconds["feed"] == nil)
        let after = try site.snapshot()
        #expect(before.mapValues(\.1) == after.mapValues(\.1), "no file written")
        return (site, clock)
    }

    func page(_ site: FixtureSite, _ path: String) throws -> String {
        try String(contentsOf: site.folder.file("public/\(path)"), encoding: .utf8)
    }

    @Test func nothingChangedIsUpToDate() async throws {
        _ = try await builtAndUpToDate()
    }

    @Test func aSidecarAddedForAPhotoThatHadNoneIsSeen() async throws {
        let (site, clock) = try await builtAndUpToDate()
        try site.folder.write("A caption from the sidecar.\n", to: "photos/trip/p3.md")
        Self.settle(clock)
        let report = try await build(site, clock: clock)
        #expect(!report.upToDate)
        let pages = site.folder.allFiles(under: "public/photos").filter { $0.hasSuffix(".html") }
        let captioned = try pages.filter { try page(site, "photos/\($0)").contains("A caption from the sidecar.") }
        #expect(captioned.count == 1 && captioned.first?.hasPrefix("p3") == true, "\(pages)")
        let again = try await build(site, clock: clock)
        #expect(again.upToDate, "and up to date again: \(again.warnings) \(again.failures)")
    }

    @Test func aFileChangedInPlaceWithItsTimeRestoredIsSeen() async throws {
        let (site, clock) = try await builtAndUpToDate()
        let file = site.folder.file("photos/p1.jpg")
        var before = stat()
        #expect(stat(file.path, &before) == 0)
        let manifestBefore = try manifestSHA256(site, "p1.jpg")
        // Same size, other bytes, written in place (the inode stays), its time put back as a tool
        // that keeps times does: only the change time says it was written.
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 3] ^= 0x55
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: bytes)
        try handle.close()
        Self.restoreTimes(before, of: file.path)
        var after = stat()
        #expect(stat(file.path, &after) == 0)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        #expect(after.st_size == before.st_size && after.st_ino == before.st_ino)
        Self.settle(clock)
        let report = try await build(site, clock: clock)
        #expect(!report.upToDate)
        #expect(try manifestSHA256(site, "p1.jpg") != manifestBefore, "the new bytes were read")
    }

    @Test func aFileReplacedByAnotherOfTheSameSizeIsSeen() async throws {
        let (site, clock) = try await builtAndUpToDate()
        let file = site.folder.file("photos/p1.jpg")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count - 3] ^= 0x55
        let other = try site.folder.write(bytes, to: "elsewhere/p1.jpg")
        var times = stat()
        #expect(stat(file.path, &times) == 0)
        Self.restoreTimes(times, of: other.path)
        let manifestBefore = try manifestSHA256(site, "p1.jpg")
        #expect(rename(other.path, file.path) == 0)
        Self.settle(clock)
        let report = try await build(site, clock: clock)
        #expect(!report.upToDate)
        #expect(try manifestSHA256(site, "p1.jpg") != manifestBefore)
    }

    @Test func aFolderRenamedIsSeen() async throws {
        let (site, clock) = try await builtAndUpToDate()
        try FileManager.default.moveItem(at: site.folder.file("photos/trip"), to: site.folder.file("photos/voyage"))
        Self.settle(clock)
        let report = try await build(site, clock: clock)
        #expect(!report.upToDate)
        #expect(FileManager.default.fileExists(atPath: site.folder.file("public/album-voyage.html").path))
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("public/album-trip.html").path))
    }

    @Test func aPhotoAddedOrRemovedIsSeen() async throws {
        let (site, clock) = try await builtAndUpToDate()
        try FileManager.default.copyItem(at: site.folder.file("photos/p1.jpg"), to: site.folder.file("photos/p4.jpg"))
        Self.settle(clock)
        #expect(try await build(site, clock: clock).counts.photos == 4)
        try FileManager.default.removeItem(at: site.folder.file("photos/trip/p3.jpg"))
        Self.settle(clock)
        let report = try await build(site, clock: clock)
        #expect(!report.upToDate && report.counts.photos == 3)
    }

    @Test func anAlbumNoteEditedIsSeen() async throws {
        let site = try folderSite()
        try site.folder.write("---\ntitle: The trip\n---\n", to: "photos/trip/index.md")
        let clock = laterClock()
        _ = try await build(site, clock: clock)
        #expect(try await build(site, clock: clock).upToDate)
        // Same size: only the stamps say it changed.
        try site.folder.write("---\ntitle: The ship\n---\n", to: "photos/trip/index.md")
        Self.settle(clock)
        #expect(try await !build(site, clock: clock).upToDate)
        #expect(try page(site, "index.html").contains("The ship"))
    }

    /// A file written less than the settling time before the build (``SourceStamp``): its stamp
    /// vouches for nothing, so the next build reads the folder again.
    @Test func aFileWrittenJustBeforeTheBuildIsReadAgainNextTime() async throws {
        let site = try folderSite()
        // One photo written again last; the build's clock half a second after.
        let file = site.folder.file("photos/p1.jpg")
        try Data(contentsOf: file).write(to: file)
        let stamp = try #require(SourceStamp(path: file.path))
        let clock = WallClock.stopped(at: Date(timeIntervalSince1970: Double(stamp.changed) / 1e9 + 0.5))
        _ = try await build(site, clock: clock)
        #expect(try await !build(site, clock: clock).upToDate, "the stamps are too fresh to trust")
        Self.settle(clock)
        _ = try await build(site, clock: clock)
        #expect(try await build(site, clock: clock).upToDate)
    }

    @Test func fullReadsEveryFileAndStillLeavesARecord() async throws {
        let (site, clock) = try await builtAndUpToDate()
        let report = try await build(site, clock: clock, full: true)
        #expect(!report.upToDate && report.counts.photos == 3)
        #expect(try await build(site, clock: clock).upToDate)
    }

    /// Sets the file's access and modification times to those of `status`, to the nanosecond.
    static func restoreTimes(_ status: stat, of path: String) {
        let times = [status.st_atim, status.st_mtim]
        #expect(utimensat(AT_FDCWD, path, times, 0) == 0)
    }

    func manifestSHA256(_ site: FixtureSite, _ name: String) throws -> String? {
        let manifest = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        return manifest.photos.first { $0.id.hasSuffix(name) }?.sha256
    }
}
