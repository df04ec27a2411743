import Foundation
import GalleryCore
import TestSupport
import Testing

@Suite struct BuildCommandTests {
    @Test func buildsASiteAndWritesAReport() throws {
        let site = try FixtureSite(count: 3)
        let run = try CommandRun.gallerygen(["build", site.url.path, "--report", site.folder.file("report.json").path])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("3 photos"))
        #expect(run.standardOutput.contains("Site written to \(site.folder.file("public").path)/index.html"))
        #expect(run.standardError.contains("Making thumbnails"), "a line per stage when not a terminal")
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: site.folder.file("report.json"))) as? [String: Any]
        let counts = try #require(report?["counts"] as? [String: Any])
        #expect(counts["photos"] as? Int == 3 && counts["failed"] as? Int == 0 && counts["local"] as? Int == 3)
        let seconds = try #require(report?["seconds"] as? [String: Double])
        #expect(Set(seconds.keys) == ["feed", "load", "images", "render", "manifest", "write", "total"])

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

    @Test func hostileFeedTextNeverReachesAPage() throws {
        let site = try FixtureSite(
            count: 1,
            extraEntries: [#"{"title": "click", "imageUrl": "javascript:alert(document.cookie)"}"#],
            titles: ["<script>alert(1)</script>"]
        )
        let run = try CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("entry 1: image URL \"javascript:alert(document.cookie)\""))
        for page in site.folder.allFiles(under: "public") where page.hasSuffix(".html") {
            let html = try String(contentsOf: site.folder.file("public/\(page)"), encoding: .utf8)
            #expect(!html.contains("<script"))
            #expect(!html.lowercased().contains("javascript:"))
            #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    @Test func aCorruptJPEGIsATileExitZeroOrOneWithStrict() throws {
        let site = try FixtureSite(count: 2, extraEntries: [#"{"title": "broken", "imageUrl": "photos/broken.jpg"}"#])
        try TestImage.truncatedJPEG(to: site.folder.file("photos/broken.jpg"))

        let lenient = try CommandRun.gallerygen(["build", site.url.path])
        #expect(lenient.status == 0)
        #expect(lenient.standardError.contains("entry 2 (id 3): "))
        #expect(lenient.standardError.contains("broken.jpg"))
        #expect(lenient.standardOutput.contains("1 failed"))

        let strict = try CommandRun.gallerygen(["build", site.url.path, "--strict"])
        #expect(strict.status == 1)
        #expect(strict.standardError.contains("1 photos failed (--strict)"))
        #expect(
            FileManager.default.fileExists(atPath: site.folder.file("public/index.html").path),
            "the site is still written")
    }

    @Test func aConfigTypoIsExitTwoWithItsLine() throws {
        let site = try FixtureSite(count: 1)
        try site.folder.write("title: T\nfeed: feed.json\nimages:\n  widht: [480]\n", to: "gallery.yml")

        let run = try CommandRun.gallerygen(["build", site.url.path])

        #expect(run.status == 2)
        #expect(run.standardError.contains("error: gallery.yml:4:3: unknown key \"widht\"; did you mean \"widths\"?"))
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("public").path), "nothing written")
    }

    @Test func aSecondRunIsByteIdentical() throws {
        let site = try FixtureSite(count: 2)
        #expect(try CommandRun.gallerygen(["build", site.url.path]).status == 0)
        let first = try site.snapshot()
        let second = try CommandRun.gallerygen(["build", site.url.path, "--quiet"])
        #expect(second.status == 0 && second.standardOutput.isEmpty && second.standardError.isEmpty)
        let again = try site.snapshot()
        #expect(first.mapValues(\.0) == again.mapValues(\.0))
        #expect(first.mapValues(\.1) == again.mapValues(\.1), "no file rewritten")
    }

    @Test func outputOptionAndUsageErrors() throws {
        let site = try FixtureSite(count: 1)
        let elsewhere = site.folder.file("elsewhere")
        #expect(try CommandRun.gallerygen(["build", site.url.path, "--output", elsewhere.path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("index.html").path))
        let usage = try CommandRun.gallerygen(["build", "--no-such-flag"])
        #expect(usage.status == 2, "usage errors exit 2, not ArgumentParser's 64")
        let missing = try CommandRun.gallerygen(["build", site.folder.file("no-site").path])
        #expect(missing.status == 2 && missing.standardError.contains("no gallery.yml"))
    }
}

@Suite struct CacheCommandTests {
    @Test func infoAndPrune() throws {
        let site = try FixtureSite(count: 3)
        #expect(try CommandRun.gallerygen(["build", site.url.path]).status == 0)

        let info = try CommandRun.gallerygen(["cache", "info", site.url.path])
        #expect(info.status == 0)
        #expect(info.standardOutput.contains("thumbnail sets: 3"))
        #expect(info.standardOutput.contains("(no cache_limit)"))

        let prune = try CommandRun.gallerygen(["cache", "prune", site.url.path, "--to", "1B"])
        #expect(prune.status == 0 && prune.standardOutput.hasPrefix("removed "))
        #expect(
            try CommandRun.gallerygen(["cache", "info", site.url.path]).standardOutput.contains("thumbnail sets: 0"))

        let rebuild = try CommandRun.gallerygen(["build", site.url.path])
        #expect(rebuild.status == 0 && rebuild.standardOutput.contains("3 encoded"))
        #expect(try CommandRun.gallerygen(["cache", "prune", site.url.path, "--to", "lots"]).status == 2)
    }
}
