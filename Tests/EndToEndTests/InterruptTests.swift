import Foundation
import GalleryCore
import TestSupport
import Testing

@Suite struct InterruptTests {
    @Test func sigintDuringDownloadsExits130AndLosesNothing() async throws {
        let upstream = try await Upstream(count: 6)
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Remote\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48]\n", to: "gallery.yml")
        #expect(try await CommandRun.gallerygen(["build", site.url.path]).status == 0)
        let before = try site.snapshot()

        // Twelve more photos, each answered only after 30 s: the build can only end by cancelling.
        upstream.setCount(18)
        upstream.setDelay(.seconds(30), from: 7)
        upstream.server.resetCounts()
        let process = Process()
        process.executableURL = CommandRun.binary
        process.arguments = ["build", site.url.path, "--quiet"]
        let exited = Locked<ContinuousClock.Instant>(nil)
        process.terminationHandler = { _ in exited.set(.now) }
        try process.run()
        // Interrupted by the server, on its own thread, the moment the fourth download is under
        // way: a test waiting for a cooperative thread while the rest of the suite held them (with
        // its child processes) came back after the build had given the slow answers up (its 30 s
        // head deadline) and ended on its own.
        let pid = process.processIdentifier
        let interrupted = Locked<ContinuousClock.Instant>(nil)
        upstream.server.whenSeen(
            { seen in seen.requests.filter { $0.path.hasPrefix("/photos/") && !$0.isConditional }.count >= 4 },
            perform: {
                interrupted.set(.now)
                kill(pid, SIGINT)
            })
        await exited.until { $0 != nil }
        let took = try #require(exited.value) - (try #require(interrupted.value, "four downloads under way"))
        print("gallerygen exited \(took) after SIGINT")

        #expect(took < .seconds(25), "exits after SIGINT, not when the slow answers end (30 s)")
        #expect(process.terminationStatus == 130)
        let cacheFiles = site.folder.allFiles(under: ".gallerygen-cache")
        #expect(
            cacheFiles.filter { $0.hasPrefix("v1/tmp/") || $0.contains(".tmp-") }.isEmpty,
            "no partial file: \(cacheFiles)")
        let after = try site.snapshot()
        #expect(before.mapValues(\.0) == after.mapValues(\.0), "the output is the previous complete site")

        upstream.setDelay(nil, from: 0)
        upstream.server.resetCounts()
        let next = try await CommandRun.gallerygen([
            "build", site.url.path, "--report", site.folder.file("r.json").path,
        ])
        #expect(next.status == 0, "\(next.standardError)")
        let fetched = upstream.photoRequests.filter { !$0.isConditional }.map(\.path).sorted()
        #expect(fetched == (7...18).map { "/photos/\($0).jpg" }.sorted(), "only what was missing is transferred")
        #expect(upstream.photoRequests.filter { $0.isConditional }.count == 6)
        try await upstream.server.shutdown()
    }
}
