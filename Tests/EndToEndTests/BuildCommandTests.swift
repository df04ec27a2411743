import Foundation
import GalleryCore
import TestSupport
import Testing

@Suite struct BuildCommandTests {
    @Test func buildsASiteAndWritesAReport() async throws {
        let site = try FixtureSite(count: 3)
        let run = try await CommandRun.gallerygen([
            "build", site.url.path, "--report", site.folder.file("report.json").path,
        ])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("3 photos"))
        #expect(run.standardOutput.contains("Site written to \(site.folder.file("public").path)/index.html"))
        #expect(run.standardError.contains("Making thumbnails"), "a line per stage when not a terminal")
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: site.folder.file("report.json"))) as? [String: Any]
        let counts = try #require(report?["counts"] as? [String: Any])
        #expect(counts["photos"] as? Int == 3 && counts["failed"] as? Int == 0 && counts["local"] as? Int == 3)
        let seconds = try #require(report?["seconds"] as? [String: Double])
        #expect(Set(seconds.keys) == ["check", "feed", "load", "images", "render", "manifest", "write", "total"])
        #expect(report?["up_to_date"] as? Bool == false)

        let files = site.folder.allFiles(under: "public")
        #expect(files.contains("index.html") && files.contains("assets/style.css") && files.contains(Manifest.fileName))
        #expect(files.filter { $0.hasPrefix("images/") }.count == 6)
        let html = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        try HTMLCheck.assertWellFormed(html)
        #expect(html.contains("<strong>world</strong>"), "the intro's Markdown")
        for image in files where image.hasPrefix("images/") {
            #expect(html.contains(image), "\(image) is used by the page")
        }
    }

    @Test func hostileFeedTextNeverReachesAPage() async throws {
        let site = try FixtureSite(
            count: 1,
            extraEntries: [#"{"title": "click", "imageUrl": "javascript:alert(document.cookie)"}"#],
            titles: ["<script>alert(1)</script>"]
        )
        let run = try await CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("entry 1: image URL \"javascript:alert(document.cookie)\""))
        for page in site.folder.allFiles(under: "public") where page.hasSuffix(".html") {
            let html = try String(contentsOf: site.folder.file("public/\(page)"), encoding: .utf8)
            // The theme's one script is its viewer, by address, with its strings as JSON; no script
            // from the feed.
            let scripts = html.components(separatedBy: "<script").count - 1
            let theme = html.components(separatedBy: "<script src=\"").count - 1
            let structured = html.components(separatedBy: "<script type=\"application/ld+json\">").count - 1
            let strings =
                html.components(separatedBy: "<script type=\"application/json\" id=\"viewer-text\">").count - 1
            #expect(scripts == theme + structured + strings)
            #expect(!html.contains("<script>"))
            #expect(!html.lowercased().contains("javascript:"))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    /// An RSS feed with Media RSS (docs/feeds.md): its photos, alt text and captions reach the pages.
    @Test func anRSSFeedBuildsItsPhotos() async throws {
        let site = try FixtureSite(count: 2)
        try site.folder.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/">
              <channel><title>Ana</title>
                <item><guid>https://example.social/@ana/1</guid>
                  <description>&lt;p&gt;Morning &amp;amp; light&lt;/p&gt;</description>
                  <media:content url="photos/p1.jpg" type="image/jpeg" medium="image">
                    <media:description type="plain">A grey square on blue</media:description>
                  </media:content>
                  <media:content url="photos/p2.jpg" type="image/jpeg" medium="image"/>
                </item>
                <item><guid>2</guid><description>Text only.</description></item>
              </channel>
            </rss>
            """, to: "feed.rss")
        let config = try String(contentsOf: site.folder.file("gallery.yml"), encoding: .utf8)
        try site.folder.write(
            config.replacingOccurrences(of: "feed: feed.json", with: "feed: feed.rss"), to: "gallery.yml")
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        let pages = site.folder.allFiles(under: "public/photos").filter { $0.hasSuffix(".html") }
        #expect(pages.count == 2, "a post of two photos is two photos; a post of text is none")
        let index = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(index.contains(#"alt="A grey square on blue""#))
        let first = try pages.map { try String(contentsOf: site.folder.file("public/photos/\($0)"), encoding: .utf8) }
        #expect(first.contains { $0.contains("<p>Morning &amp; light</p>") })
    }

    @Test func aCorruptJPEGIsATileExitZeroOrOneWithStrict() async throws {
        let site = try FixtureSite(count: 2, extraEntries: [#"{"title": "broken", "imageUrl": "photos/broken.jpg"}"#])
        try TestImage.truncatedJPEG(to: site.folder.file("photos/broken.jpg"))

        let lenient = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(lenient.status == 0)
        #expect(lenient.standardError.contains("entry 2 (id 3): "))
        #expect(lenient.standardError.contains("broken.jpg"))
        #expect(lenient.standardOutput.contains("1 failed"))

        let strict = try await CommandRun.gallerygen(["build", site.url.path, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.standardError.contains("1 photos failed (--strict)"))
        #expect(
            FileManager.default.fileExists(atPath: site.folder.file("public/index.html").path),
            "the site is still written")
    }

    @Test func aConfigTypoIsExitTwoWithItsLine() async throws {
        let site = try FixtureSite(count: 1)
        try site.folder.write("title: T\nfeed: feed.json\nimages:\n  widht: [480]\n", to: "gallery.yml")

        let run = try await CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 2)
        #expect(run.standardError.contains("error: gallery.yml:4:3: unknown key \"widht\"; did you mean \"widths\"?"))
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("public").path), "nothing written")
    }

    @Test func aSecondRunIsByteIdentical() async throws {
        let site = try FixtureSite(count: 2)
        #expect(try await CommandRun.gallerygen(["build", site.url.path]).status == 0)
        let first = try site.snapshot()
        let second = try await CommandRun.gallerygen(["build", site.url.path, "--quiet"])
        #expect(second.status == 0 && second.standardOutput.isEmpty && second.standardError.isEmpty)
        let again = try site.snapshot()
        #expect(first.mapValues(\.0) == again.mapValues(\.0))
        #expect(first.mapValues(\.1) == again.mapValues(\.1), "no file rewritten")
    }

    @Test func outputOptionAndUsageErrors() async throws {
        let site = try FixtureSite(count: 1)
        let elsewhere = site.folder.file("elsewhere")
        #expect(try await CommandRun.gallerygen(["build", site.url.path, "--output", elsewhere.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("index.html").path))
        let usage = try await CommandRun.gallerygen(["build", "--no-such-flag"])
        #expect(usage.status == 2, "usage errors exit 2, not ArgumentParser's 64")
        let missing = try await CommandRun.gallerygen(["build", site.folder.file("no-site").path])
        #expect(missing.status == 2 && missing.standardError.contains("no gallery.yml"))
        let seed = try await CommandRun.gallerygen(["build", site.url.path, "--seed", "public/"])
        #expect(seed.status == 2 && seed.standardError.contains("--seed must be an http or https URL"))
    }

    // MARK: What a user sees of failures and warnings (issue 10)

    @Test func failuresAreGroupedByCauseWithACountAndAFewExamples() async throws {
        let broken = (1...6).map { #"{"title": "broken \#($0)", "imageUrl": "photos/broken\#($0).jpg"}"# }
        let site = try FixtureSite(count: 1, extraEntries: broken + [#"{"title": "x", "imageUrl": "photos/none.jpg"}"#])
        for number in 1...6 { try TestImage.truncatedJPEG(to: site.folder.file("photos/broken\(number).jpg")) }

        let run = try await CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 0, "one photo shows: \(run.standardError)")
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("warning: 6 photos failed (cannot decode), e.g.:") }.count == 1)
        #expect(lines.filter { $0.hasPrefix("    entry ") }.count == 4, "three examples and one of the other group")
        #expect(lines.contains("    … and 3 more"))
        #expect(lines.contains { $0.hasPrefix("warning: 1 photo failed (unreadable file):") })
        #expect(!run.standardError.contains(site.url.path), "no local path: \(run.standardError)")

        let verbose = try await CommandRun.gallerygen(["build", site.url.path, "--verbose"])
        let failedLines = verbose.standardError.split(separator: "\n").filter { $0.hasPrefix("warning: entry ") }
        #expect(failedLines.count == 7, "--verbose prints each failure too")
        let firstFailure = try #require(verbose.standardError.range(of: "warning: entry "))
        let imagesDone = try #require(verbose.standardError.range(of: "Making thumbnails done"))
        #expect(firstFailure.lowerBound < imagesDone.lowerBound, "as it happens, not at the end")
    }

    @Test func underGitHubActionsStagesAreGroupsFailuresAnnotationsAndTheStepHasASummary() async throws {
        let broken = (1...6).map { #"{"title": "broken \#($0)", "imageUrl": "photos/broken\#($0).jpg"}"# }
        let site = try FixtureSite(count: 2, extraEntries: broken)
        for number in 1...6 { try TestImage.truncatedJPEG(to: site.folder.file("photos/broken\(number).jpg")) }
        let summary = site.folder.file("step-summary.md")
        try Data("earlier step\n".utf8).write(to: summary)

        let run = try await CommandRun.gallerygen(
            ["build", site.url.path], environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])

        #expect(run.status == 0, "\(run.standardError)")
        let commands = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("::") }
        let opened = commands.filter { $0.hasPrefix("::group::") }
        #expect(opened.count >= 4, "a group per stage: \(commands)")
        #expect(commands.filter { $0 == "::endgroup::" }.count == opened.count)
        let annotations = commands.filter { $0.hasPrefix("::warning") }
        #expect(annotations.count == 1, "one group, one annotation: \(annotations)")
        #expect(
            annotations.first?.hasPrefix(
                "::warning title=gallerygen%3A 6 photos failed (cannot decode)::6 photos failed (cannot decode), e.g.:%0A    entry "
            ) == true, "\(annotations)")
        #expect(!run.standardError.contains("warning: 6 photos failed"), "annotations instead of the lines")
        let text = try String(contentsOf: summary, encoding: .utf8)
        #expect(text.hasPrefix("earlier step\n### gallerygen build"), "appended: \(text)")
        #expect(text.contains("| 8 | 6 |"), "\(text)")
        #expect(text.contains("| 6 | image | cannot decode |"), "\(text)")

        let plain = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(!plain.standardOutput.contains("::"), "no workflow command outside GitHub Actions")
    }

    @Test func photosOnADeadHostAreALineOrTwoNotOneEach() async throws {
        let gone = try await TestHTTPServer { _ in .text(200) }
        let port = gone.port
        try await gone.shutdown()  // nothing listens there any more
        let site = try FixtureSite(count: 1)
        try site.writeFeed(
            (1...200).map { #"{"title": "\#($0)", "imageUrl": "http://127.0.0.1:\#(port)/p/\#($0).jpg"}"# }
                + [#"{"title": "local", "imageUrl": "photos/p1.jpg"}"#])

        let run = try await CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 0, "the local photo shows: \(run.standardError)")
        let headings = run.standardError.split(separator: "\n").filter { $0.hasPrefix("warning: ") }
        #expect((1...2).contains(headings.count), "\(headings)")
        #expect(headings.allSatisfy { $0.contains("failed (") && $0.contains(" at 127.0.0.1)") }, "\(headings)")
        let counted = headings.compactMap { Int($0.dropFirst("warning: ".count).prefix { $0.isNumber }) }
        #expect(counted.reduce(0, +) == 200, "\(headings)")
    }

    @Test func aBuildWhereNoPhotoShowsFailsAndWritesNothing() async throws {
        let site = try FixtureSite(count: 0, extraEntries: [#"{"title": "b", "imageUrl": "photos/broken.jpg"}"#])
        try TestImage.truncatedJPEG(to: site.folder.file("photos/broken.jpg"))
        try site.folder.write("title: T\nfeed: feed.json\nmax_failures: 100\n", to: "gallery.yml")

        let allFailed = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(allFailed.status == 1, "whatever max_failures says")
        #expect(allFailed.standardError.contains("error: all 1 photos failed: the site would show no photo"))
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("public").path), "nothing written")

        try site.writeFeed([#"{"title": "no image here", "imageUrl": "javascript:void(0)"}"#])
        let empty = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(empty.status == 1)
        #expect(empty.standardError.contains("error: the feed has no usable entry (1 entries skipped)"))
    }

    /// A folder emptied (or a bucket or share that lists nothing for a moment) between two builds:
    /// the second fails and leaves the first one's site exactly as it was, every file's bytes and
    /// inode; the build after it, with the photos back, is a build like any other.
    @Test func aFolderEmptiedLeavesThePublishedSiteAsItWas() async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: T\nfeed: photos\nimages:\n  widths: [64]\n", to: "gallery.yml")
        for index in 1...3 {
            try TestImage(width: 80, height: 60, fill: TestImage.Color(UInt8(60 * index), 90, 160))
                .saveJPEG(to: site.folder.file("photos/p\(index).jpg"))
        }
        let first = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(first.status == 0, "\(first.standardError)")
        let before = try site.snapshot()
        #expect(before.count > 5)

        let moved = try TemporaryDirectory("moved")
        try FileManager.default.moveItem(at: site.folder.file("photos"), to: moved.file("photos"))
        try FileManager.default.createDirectory(at: site.folder.file("photos"), withIntermediateDirectories: true)
        let report = site.folder.file("report.json")
        let emptied = try await CommandRun.gallerygen(["build", site.url.path, "--report", report.path])

        #expect(emptied.status == 1)
        #expect(emptied.standardError.contains("error: the feed has no usable entry: the site would show no photo"))
        #expect(emptied.standardError.contains("nothing was written"), "\(emptied.standardError)")
        #expect(emptied.standardOutput.contains("Nothing written: "), "\(emptied.standardOutput)")
        let after = try site.snapshot()
        #expect(Set(after.keys) == Set(before.keys))
        for (path, (bytes, inode)) in before {
            #expect(after[path]?.0 == bytes && after[path]?.1 == inode, "\(path) left as it was")
        }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        #expect(json?["output_kept"] as? Bool == true)
        #expect(json?["exit_code"] as? Int == 1)

        try FileManager.default.removeItem(at: site.folder.file("photos"))
        try FileManager.default.moveItem(at: moved.file("photos"), to: site.folder.file("photos"))
        let again = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(try site.snapshot().keys.sorted() == before.keys.sorted())
    }

    @Test func libvipsWarningsAreOursAndNameThePhoto() async throws {
        let site = try FixtureSite(count: 4, extraEntries: [#"{"title": "crc", "imageUrl": "photos/crc.png"}"#])
        try TestImage.pngWithDamagedTextChunk(to: site.folder.file("photos/crc.png"))
        let report = site.folder.file("report.json")

        let run = try await CommandRun.gallerygen(["build", site.url.path, "--report", report.path])

        #expect(run.status == 0)
        #expect(!run.standardError.contains("VIPS-WARNING"), "libvips prints nothing of its own")
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.filter { $0 == "warning: photos/crc.png: libvips: tEXt: CRC error" }.count == 1, "\(lines)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        #expect(json?["warnings"] as? [String] == ["photos/crc.png: libvips: tEXt: CRC error"])

        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache"))
        let quiet = try await CommandRun.gallerygen(["build", site.url.path, "--quiet"])
        #expect(quiet.status == 0 && quiet.standardError.isEmpty, "--quiet: \(quiet.standardError)")
    }

    /// Issue 10, case 3, on a real full disk: a 2 MB tmpfs (the test needs root, as CI has).
    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aFullDiskLeavesThePreviousSiteWhole() async throws {
        let site = try FixtureSite(count: 3)
        let output = site.folder.file("small-disk")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        try #require(Self.shell("mount -t tmpfs -o size=2m tmpfs '\(output.path)'") == 0)
        defer {
            _ = Self.shell("umount '\(output.path)'")
            withExtendedLifetime(site) {}  // its folder goes only after the unmount
        }
        let first = try await CommandRun.gallerygen(["build", site.url.path, "--output", output.path])
        try #require(first.status == 0, "\(first.standardError)")
        let before = try site.snapshot(of: "small-disk").mapValues(\.0)

        // Twenty more photos, and the disk filled to within a few kilobytes.
        var entries: [String] = []
        for number in 1...23 {
            var image = TestImage(width: 400, height: 300, fill: TestImage.Color(UInt8(number * 10), 20, 200))
            image.fillRect(x: number * 10, y: 30, width: 50, height: 80, color: .white)
            try image.saveJPEG(to: site.folder.file("photos/n\(number).jpg"))
            entries.append(#"{"title": "n\#(number)", "imageUrl": "photos/n\#(number).jpg"}"#)
        }
        try site.writeFeed(entries)
        var status = statvfs()
        try #require(statvfs(output.path, &status) == 0)
        let free = Int(status.f_bavail) * Int(status.f_bsize)
        try #require(Self.shell("fallocate -l \(free - 8192) '\(output.path)/filler'") == 0)

        let full = try await CommandRun.gallerygen(["build", site.url.path, "--output", output.path])

        #expect(full.status == 1)
        #expect(
            full.standardError.contains("No space left") || full.standardError.contains("not enough space"),
            "\(full.standardError)")
        try FileManager.default.removeItem(at: output.appendingPathComponent("filler"))
        #expect(try site.snapshot(of: "small-disk").mapValues(\.0) == before, "the previous site, whole")

        let again = try await CommandRun.gallerygen(["build", site.url.path, "--output", output.path])
        #expect(again.status == 0, "\(again.standardError)")
        #expect(site.folder.allFiles(under: "small-disk/images").count == 46)
    }

    static func shell(_ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        do {
            try process.run()
        } catch {
            return -1
        }
        return process.waitForExit()
    }
}
