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
        try process.run()
        // Polled without suspending: a test suspended here while the rest of the suite holds the
        // cooperative threads (with its child processes) came back after the build had given the
        // slow answers up (its 30 s head deadline) and ended on its own.
        let started = Date()
        while upstream.photoRequests.filter({ !$0.isConditional }).count < 4 {
            guard Date().timeIntervalSince(started) < 10 else {
                Issue.record("four downloads under way: not within 10 s")
                break
            }
            usleep(10_000)
        }
        let clock = ContinuousClock()
        let interrupted = clock.now
        process.interrupt()
        try? await waitUntil(seconds: 15, "gallerygen exits") { !process.isRunning }
        let took = clock.now - interrupted
        print("gallerygen exited \(took) after SIGINT")

        #expect(!process.isRunning, "exits after SIGINT (took \(took); the slow answers would take 30 s)")
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
