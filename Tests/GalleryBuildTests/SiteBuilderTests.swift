import Foundation
import GalleryCore
import GalleryJSON
import Reporting
import Synchronization
import TestSupport
import Testing

@testable import GalleryBuild

@Suite struct SiteBuilderTests {
    func build(_ site: FixtureSite, options: BuildOptions = BuildOptions()) async throws -> BuildResult {
        try await SiteBuilder(siteDirectory: site.url, options: options).build()
    }

    @Test func theSiteCarriesItsHostsRulesUnlessToldNot() async throws {
        let site = try FixtureSite(count: 2)
        _ = try await build(site)
        let output = site.folder.file("public")

        let noJekyll = try Data(contentsOf: output.appendingPathComponent(".nojekyll"))
        #expect(noJekyll.isEmpty)
        let headers = try String(contentsOf: output.appendingPathComponent("_headers"), encoding: .utf8)
        #expect(headers.contains("/images/*\n  Cache-Control: public, max-age=31536000, immutable\n"))
        for path in ["/", "/index.html", "/feed.xml", "/gallery-manifest.json", "/photos/*", "/assets/*"] {
            #expect(headers.contains("\n\(path)\n  Cache-Control: public, max-age=0, must-revalidate\n"), "\(path)")
        }
        let patterns = headers.split(separator: "\n").filter { $0.hasPrefix("/") }
        #expect(Set(patterns).count == patterns.count, "hosts join a header two rules set: \(patterns)")
        let pages = try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".html") }
        #expect(!pages.isEmpty && pages.allSatisfy { patterns.contains("/\($0)") }, "\(pages) in \(patterns)")

        try site.folder.write(
            "title: Test gallery\nfeed: feed.json\nimages:\n  widths: [64]\nhost_files: false\n", to: "gallery.yml")
        _ = try await build(site)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("_headers").path))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(".nojekyll").path))
    }

    @Test func buildsPagesImagesAndManifest() async throws {
        let site = try FixtureSite(count: 3)
        let result = try await build(site)

        #expect(result.report.counts.photos == 3 && result.report.counts.failed == 0)
        let files = site.folder.allFiles(under: "public")
        #expect(files.contains("index.html") && files.contains("assets/style.css") && files.contains(Manifest.fileName))
        #expect(files.filter { $0.hasPrefix("images/") && $0.hasSuffix(".webp") }.count == 6)
        let manifest = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        #expect(manifest.photos.map(\.source) == ["photos/p1.jpg", "photos/p2.jpg", "photos/p3.jpg"])
        #expect(manifest.photos.allSatisfy { $0.renditions.map(\.width) == [64, 128] && $0.sha256?.count == 64 })
        #expect(manifest.files == files.filter { $0 != Manifest.fileName })
    }

    @Test func twoEntriesWithOneImageShareOneSetOfThumbnails() async throws {
        let site = try FixtureSite(count: 2, extraEntries: [#"{"title": "again", "imageUrl": "photos/p1.jpg"}"#])
        // A third URL spelling for the same bytes: a copy of p2 under another name.
        try FileManager.default.copyItem(at: site.folder.file("photos/p2.jpg"), to: site.folder.file("photos/copy.jpg"))
        var entries = try String(contentsOf: site.folder.file("feed.json"), encoding: .utf8)
        entries = entries.replacingOccurrences(
            of: "\n]", with: ",\n{\"title\": \"copy\", \"imageUrl\": \"photos/copy.jpg\"}\n]")
        try site.folder.write(entries, to: "feed.json")

        let result = try await build(site)

        #expect(result.report.counts.photos == 4)
        #expect(result.report.counts.urls == 3)
        #expect(result.report.counts.processed == 2, "identical bytes are processed once")
        let images = site.folder.allFiles(under: "public/images")
        #expect(images.count == 4, "two originals x two widths: \(images)")
        let manifest = try Manifest.decode(Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
        #expect(manifest.photos[0].renditions == manifest.photos[2].renditions)
        #expect(manifest.photos[1].renditions == manifest.photos[3].renditions)
    }

    @Test func aSecondBuildIsByteIdenticalAndTouchesNothing() async throws {
        let site = try FixtureSite(count: 3)
        _ = try await build(site)
        let first = try site.snapshot()

        let second = try await build(site)

        let again = try site.snapshot()
        #expect(Set(first.keys) == Set(again.keys))
        for (path, (data, date)) in first {
            #expect(again[path]?.0 == data, "\(path) is byte-identical")
            #expect(again[path]?.1 == date, "\(path) was not rewritten")
        }
        #expect(second.report.counts.processed == 0, "renditions come from the cache")
        #expect(second.report.counts.filesWritten == 0)
    }

    @Test func aFreshCacheAndOutputGiveTheSameBytes() async throws {
        let site = try FixtureSite(count: 2)
        _ = try await build(site)
        let first = try site.snapshot()
        try FileManager.default.removeItem(at: site.folder.file("public"))
        try FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache"))

        _ = try await build(site)

        let again = try site.snapshot()
        #expect(first.mapValues(\.0) == again.mapValues(\.0))
    }

    @Test func filesNoLongerProducedAreRemovedAndOthersKept() async throws {
        let site = try FixtureSite(count: 3)
        _ = try await build(site)
        try site.folder.write("mine", to: "public/CNAME")
        let before = Set(site.folder.allFiles(under: "public/images"))
        try site.writeFeed([#"{"title": "only", "imageUrl": "photos/p1.jpg"}"#])

        let result = try await build(site)

        let after = Set(site.folder.allFiles(under: "public/images"))
        #expect(after.count == 2 && after.isSubset(of: before))
        // Four thumbnails and three photo pages: the photo left has a new title, so a new page.
        #expect(result.report.counts.filesRemoved == 7)
        #expect(site.folder.allFiles(under: "public/photos").count == 1)
        #expect(
            FileManager.default.fileExists(atPath: site.folder.file("public/CNAME").path),
            "a file the build never wrote stays")
    }

    @Test func aCorruptPhotoBecomesATileAndAReportEntry() async throws {
        let site = try FixtureSite(count: 2, extraEntries: [#"{"title": "broken", "imageUrl": "photos/broken.jpg"}"#])
        try TestImage.truncatedJPEG(to: site.folder.file("photos/broken.jpg"))

        let result = try await build(site)

        #expect(result.report.counts.failed == 1)
        let failure = try #require(result.report.failures.first)
        #expect(failure.index == 2 && failure.stage == "image" && failure.message.contains("broken.jpg"))
        #expect(!result.failsBuild(strict: false))
        #expect(result.failsBuild(strict: true))
        let html = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        #expect(html.contains("class=\"photo failed w0\""))
        #expect(html.components(separatedBy: "class=\"photo w").count - 1 == 2)
    }

    @Test func maxFailuresDecidesWithoutStrict() async throws {
        let site = try FixtureSite(
            count: 1, extraConfig: "max_failures: 0", extraEntries: [#"{"title": "x", "imageUrl": "photos/none.jpg"}"#])
        let result = try await build(site)
        #expect(result.report.counts.failed == 1)
        #expect(result.failsBuild(strict: false))
    }

    @Test func aMissingFeedIsAConfigErrorAtItsLine() async throws {
        let site = try FixtureSite(count: 1)
        try site.folder.write("title: T\nfeed:\n  url: nowhere.json\n", to: "gallery.yml")
        await #expect {
            try await build(site)
        } throws: { error in
            guard let config = (error as? BuildError)?.configurationError else { return false }
            return config.description.hasPrefix("gallery.yml:3:8: the feed")
                && config.description.contains("nowhere.json")
        }
    }

    @Test func anInvalidFeedFailsTheBuildNamingTheSpot() async throws {
        let site = try FixtureSite(count: 1)
        try site.folder.write("[{\"title\": \"a\",, \"imageUrl\": \"x.jpg\"}]", to: "feed.json")
        await #expect {
            try await build(site)
        } throws: { error in
            guard let error = error as? BuildError, error.code == .feed else { return false }
            return error.description.hasPrefix("feed.json:1:16: invalid JSON") && error.step == "read the feed"
                && error.description.hasSuffix("(step: read the feed)")
        }
    }

    /// Each step of the pipeline runs in its order and is timed under its stage; a failing one
    /// is named in the error (here the render step, with an intro too long to render).
    @Test func theStepsRunInOrderAndAFailingOneIsNamed() async throws {
        let site = try FixtureSite(count: 2)
        let stages = Mutex<[String]>([])
        let builder = SiteBuilder(siteDirectory: site.url) { event in
            if case .finished(let stage, _) = event { stages.withLock { $0.append(stage.rawValue) } }
        }
        let report = try await builder.build().report
        #expect(stages.withLock { $0 } == ["check", "feed", "load", "images", "render", "write"])
        #expect(Set(report.seconds.keys).isSuperset(of: ["feed", "load", "images", "render", "write", "manifest"]))

        // An intro over its limit is found when the pages are made.
        try site.folder.write(String(repeating: "A long intro. ", count: 4_000), to: "index.md")
        await #expect {
            try await build(site)
        } throws: { error in
            (error as? BuildError)?.step == "render the pages"
        }
    }

    /// Issue 10, case 6: libvips' error buffer is one for all threads, so a failure's words once
    /// depended on what else was decoding ("unknown libvips error", or a neighbour's message);
    /// and the manifest held file:///home/... paths. Two unreadable files, each under several
    /// names so that failures overlap in time, among photos that decode.
    @Test(.timeLimit(.minutes(3))) func failuresSayTheSameThingEveryBuildAndNameNoLocalPath() async throws {
        let copies = 6
        let broken = (1...copies).flatMap { number in
            [
                #"{"title": "j\#(number)", "imageUrl": "photos/broken\#(number).jpg"}"#,
                #"{"title": "p\#(number)", "imageUrl": "photos/broken\#(number).png"}"#,
            ]
        }
        // And the same bytes under a second name: each photo is named for itself, whichever of
        // the two was decoded.
        let twin = #"{"title": "twin", "imageUrl": "photos/twin.jpg"}"#
        let site = try FixtureSite(count: 8, extraEntries: broken + [twin])
        var png = TestImage(width: 600, height: 400, fill: .blue)
        png.fillRect(x: 10, y: 10, width: 100, height: 100, color: .red)
        try png.savePNG(to: site.folder.file("photos/broken1.png"))
        let whole = try Data(contentsOf: site.folder.file("photos/broken1.png"))
        try whole.prefix(whole.count / 3).write(to: site.folder.file("photos/broken1.png"))
        try TestImage.truncatedJPEG(to: site.folder.file("photos/broken1.jpg"))
        try FileManager.default.copyItem(
            at: site.folder.file("photos/broken1.jpg"), to: site.folder.file("photos/twin.jpg"))
        for number in 2...copies {
            for ext in ["jpg", "png"] {
                // Different bytes (one more at the end), so that each is its own original.
                var bytes = try Data(contentsOf: site.folder.file("photos/broken1.\(ext)"))
                bytes.append(contentsOf: [UInt8](repeating: 0, count: number))
                try bytes.write(to: site.folder.file("photos/broken\(number).\(ext)"))
            }
        }

        var manifests: [Data] = []
        var failures: [[BuildReport.Failure]] = []
        for _ in 0..<20 {
            // From nothing each time, so that every photo is decoded, all at once.
            try? FileManager.default.removeItem(at: site.folder.file(".gallerygen-cache"))
            try? FileManager.default.removeItem(at: site.folder.file("public"))
            let result = try await build(site)
            #expect(result.report.counts.failed == 2 * copies + 1)
            manifests.append(try Data(contentsOf: site.folder.file("public/\(Manifest.fileName)")))
            failures.append(result.report.failures)
        }

        #expect(Set(manifests).count == 1, "20 builds, one manifest")
        #expect(Set(failures.map { "\($0)" }).count == 1)
        let manifest = String(decoding: manifests[0], as: UTF8.self)
        #expect(!manifest.contains(site.url.path) && !manifest.contains("file://"), "\(manifest)")
        for failure in failures[0] {
            let name = try #require(failure.url)
            let other = name.hasSuffix(".jpg") ? ".png" : ".jpg"
            #expect(failure.message.hasPrefix("\(name): cannot decode the image: "), "\(failure.message)")
            #expect(!failure.message.contains(other), "names only its own file: \(failure.message)")
            #expect(!failure.message.contains("unknown libvips error"))
        }
    }
}
