import Foundation
import GalleryCore
import Synchronization
import TestSupport
import Testing

@testable import Preview

/// The watcher hears a site's edits from the system's notifications: in nested folders, in a
/// folder made after it started, and never from the output or the cache.
@Suite struct SiteWatcherTests {
    /// A site with `photos/2024/a.jpg`, an output and a cache folder.
    func site() throws -> TemporaryDirectory {
        let site = try TemporaryDirectory("watched")
        try site.write("jpeg", to: "photos/2024/a.jpg")
        try site.write("<html>", to: "public/index.html")
        try site.write("", to: ".gallerygen-cache/v1/store.sqlite")
        try site.write("title: T\nfeed: photos\n", to: "gallery.yml")
        return site
    }

    func events(for site: TemporaryDirectory) throws -> FileEvents {
        let excluded = Set(["public"].map { site.file($0).standardizedFileURL.path })
        let trees = [site.file("photos")]
        return try #require(try FileEvents(site: site.url, excluding: excluded, trees: trees))
    }

    @Test(.timeLimit(.minutes(1))) func anEditDeepInTheTreeIsHeard() async throws {
        let site = try site()
        let events = try events(for: site)
        events.start()
        defer { events.stop() }
        var heard = events.changes.makeAsyncIterator()
        // The output and the cache change with every build: not inputs.
        try site.write("<html>rebuilt", to: "public/index.html")
        try site.write("x", to: ".gallerygen-cache/v1/store.sqlite-wal")
        try site.write("A caption", to: "photos/2024/a.md")
        #expect(await heard.next() != nil)
        #expect(events.lastHeard.contains(site.file("photos/2024/a.md").standardizedFileURL.path))
        #expect(!events.lastHeard.contains { $0.contains("/public/") || $0.contains(".gallerygen-cache") })
    }

    @Test(.timeLimit(.minutes(1))) func aFolderMadeAfterTheStartIsWatchedToo() async throws {
        let site = try site()
        let events = try events(for: site)
        events.start()
        defer { events.stop() }
        var heard = events.changes.makeAsyncIterator()
        try FileManager.default.createDirectory(
            at: site.file("photos/2025"), withIntermediateDirectories: true)
        // Its watch is added as its creation is read, before that is said.
        #expect(await heard.next() != nil)
        try site.write("jpeg", to: "photos/2025/b.jpg")
        #expect(await heard.next() != nil)
        #expect(events.lastHeard.contains(site.file("photos/2025/b.jpg").standardizedFileURL.path))
    }

    @Test(.timeLimit(.minutes(1))) func theWatcherCallsWhenTheSiteFoldersOwnFilesChange() async throws {
        let site = try site()
        let watcher = SiteWatcher(
            site: site.url, excluded: [site.file("public").standardizedFileURL.path],
            paths: [site.file("gallery.yml"), site.file("photos")], settle: .milliseconds(50))
        guard case .notified(let events) = watcher.method() else {
            Issue.record("no file notifications on this system")
            return
        }
        let (calls, continuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task { await watcher.run(method: .notified(events)) { continuation.yield() } }
        var iterator = calls.makeAsyncIterator()
        // The site folder's own files are heard too: watched from the start, a save made before
        // the reading thread runs is read when it does.
        for version in 1...3 { try site.write("title: T\(version)\nfeed: photos\n", to: "gallery.yml") }
        #expect(await iterator.next() != nil)
        #expect(events.lastHeard.contains(site.file("gallery.yml").standardizedFileURL.path))
        task.cancel()
        await task.value
    }
}
