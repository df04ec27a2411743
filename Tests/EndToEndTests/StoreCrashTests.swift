import Foundation
import GalleryCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// gallerygen killed with SIGKILL at random points of its builds, twenty times: whatever the
/// build store holds afterwards, the next build trusts it no further than it should, and
/// writes the site a clean build writes.
@Suite(.timeLimit(.minutes(5))) struct StoreCrashTests {
    func site(_ upstream: Upstream, title: String = "Crash") throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try configure(site, upstream, title: title)
        return site
    }

    func configure(_ site: FixtureSite, _ upstream: Upstream, title: String) throws {
        try site.folder.write(
            "title: \(title)\nfeed: \(upstream.feedURL)\nimages:\n  widths: [48]\n", to: "gallery.yml")
    }

    /// The site a clean build writes from the upstream as it is now.
    func cleanOutput(_ upstream: Upstream, title: String = "Crash") async throws -> [String: Data] {
        let clean = try site(upstream, title: title)
        let run = try await CommandRun.gallerygen(["build", clean.url.path, "--quiet"])
        #expect(run.status == 0, "\(run.standardError)")
        return try clean.snapshot().mapValues(\.0)
    }

    @Test func killedAtRandomPointsTheNextBuildIsRight() async throws {
        let upstream = try await Upstream(count: 8)
        let site = try site(upstream)
        var random = SystemRandomNumberGenerator()
        var killedMidway = 0
        // How long a whole build takes here: the kills land at random within it.
        let clock = ContinuousClock()
        var first: CommandRun?
        var lasted = try await clock.measure {
            first = try await CommandRun.gallerygen(["build", site.url.path, "--quiet"])
        }
        #expect(first?.status == 0)
        // 20 trials, and up to 20 more while fewer than 5 kills have landed inside a build (under
        // load a build's length varies, and a kill may come after the build it aimed at).
        for trial in 1...40 {
            if trial > 20, killedMidway >= 5 { break }
            // Every other trial one photo changes, so records and thumbnails are written anew;
            // the rest revalidate every record (--refresh), so every record is written again.
            if trial.isMultiple(of: 2) { upstream.change(trial / 2 % 8 + 1) }
            let process = Process()
            process.executableURL = CommandRun.binary
            process.arguments = ["build", site.url.path, "--quiet"] + (trial.isMultiple(of: 2) ? [] : ["--refresh"])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let milliseconds = Int(lasted.seconds * 1000)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...max(1, milliseconds * 9 / 10), using: &random)))
            if process.isRunning {
                killedMidway += 1
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitForExit()

            let report = site.folder.file("report-\(trial).json")
            var next: CommandRun?
            lasted = try await clock.measure {
                next = try await CommandRun.gallerygen(["build", site.url.path, "--quiet", "--report", report.path])
            }
            let run = try #require(next)
            #expect(run.status == 0, "trial \(trial): \(run.standardError)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
            let warnings = json?["warnings"] as? [String] ?? []
            #expect(!warnings.contains { $0.contains("cache store") }, "trial \(trial): \(warnings)")
            #expect((json?["counts"] as? [String: Int])?["failed"] == 0, "trial \(trial)")
            let have = try site.snapshot().mapValues(\.0)
            let want = try await cleanOutput(upstream)
            let differing = Set(have.keys).union(want.keys).filter { have[$0] != want[$0] }.sorted()
            #expect(have == want, "trial \(trial): \(differing.prefix(5))")
        }
        // The kills are meant to land inside builds: a good share of them must have.
        #expect(killedMidway >= 5, "only \(killedMidway) of 40 builds were still running when killed")
        try await upstream.server.shutdown()
    }
    /// Fresh photos, and a title that goes back and forth: a build killed at any point never
    /// leaves a folder that the next build's up-to-date check vouches for wrongly.
    @Test func killedAtRandomPointsTheUpToDateCheckIsNeverFooled() async throws {
        let upstream = try await Upstream(count: 8)
        upstream.setCacheControl("max-age=3600")
        let titles = ["Before", "After"]
        var clean: [String: [String: Data]] = [:]
        for title in titles { clean[title] = try await cleanOutput(upstream, title: title) }
        let site = try site(upstream, title: titles[0])
        var random = SystemRandomNumberGenerator()
        let clock = ContinuousClock()
        var lasted = try await clock.measure {
            _ = try await CommandRun.gallerygen(["build", site.url.path, "--quiet"])
        }
        var upToDate = 0
        for trial in 1...20 {
            try configure(site, upstream, title: titles[trial % 2])
            let process = Process()
            process.executableURL = CommandRun.binary
            process.arguments = ["build", site.url.path, "--quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let milliseconds = Int(lasted.seconds * 1000)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...max(1, milliseconds * 9 / 10), using: &random)))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitForExit()

            // The next build: the title the killed build was given, or the one before it.
            let title = titles.randomElement(using: &random) ?? titles[0]
            try configure(site, upstream, title: title)
            let report = site.folder.file("report-\(trial).json")
            var next: CommandRun?
            lasted = try await clock.measure {
                next = try await CommandRun.gallerygen(["build", site.url.path, "--quiet", "--report", report.path])
            }
            #expect(next?.status == 0, "trial \(trial): \(next?.standardError ?? "")")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
            if json?["up_to_date"] as? Bool == true { upToDate += 1 }
            #expect(try site.snapshot().mapValues(\.0) == clean[title], "trial \(trial), \(title)")
        }
        // Both kinds of next build happened: some found nothing to do.
        #expect(upToDate >= 1, "no build was up to date")
        try await upstream.server.shutdown()
    }
}
