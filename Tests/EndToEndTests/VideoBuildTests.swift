import Foundation
import GalleryCore
import TestSupport
import Testing

/// Clips built by the command from a folder: a phone's turned HEVC MOV with a place, a silent
/// MP4, a broken clip, a Live Photo's motion beside its still, and a photo; what a rebuild does;
/// what a machine without ffmpeg does. The clips are made with Debian's ffmpeg (TestClip).
@Suite(.serialized) struct VideoBuildTests {
    static func site(_ config: String = "") throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Clips\nfeed: photos\nbase_url: https://example.org/g/\nimages:\n  widths: [64, 128]\n\(config)\n",
            to: "gallery.yml")
        let photos = site.folder.file("photos")
        _ = try WhatPhotosSayTests.photo(site, "a-photo.jpg", shade: 40)
        try TestClip.make(.phoneMOV, named: "b-phone.MOV", in: photos)
        try TestClip.make(.silentMP4, named: "c-silent.mp4", in: photos)
        // A Live Photo: the still stands for both; its motion is not an item of its own, and plays
        // in the viewer.
        _ = try WhatPhotosSayTests.photo(site, "IMG_0002.JPG", shade: 90)
        try TestClip.make(.silentMP4, named: "IMG_0002.MOV", in: photos)
        return site
    }

    static func build(_ site: FixtureSite, environment: [String: String] = [:]) async throws -> [String: Any] {
        let report = site.folder.file("report.json")
        let run = try await CommandRun.gallerygen(
            ["build", site.url.path, "--report", report.path], environment: environment)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
        #expect(run.status == (json["exit_code"] as? Int32 ?? 0), "\(run.standardError)")
        return json
    }

    static func videos(_ site: FixtureSite) -> [String] {
        site.folder.allFiles(under: "public/images").filter { $0.hasSuffix(".mp4") || $0.hasSuffix(".webm") }.sorted()
    }

    @Test func clipsBecomeUprightWebVideosShownWithTheirPostersAndLength() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let site = try Self.site()
        let report = try await Self.build(site)
        let counts = try #require(report["counts"] as? [String: Any])
        #expect(counts["photos"] as? Int == 4, "a photo, two clips, a Live Photo's still")
        #expect(counts["videos"] as? Int == 2)
        #expect(counts["failed"] as? Int == 0)
        #expect(counts["processed"] as? Int == 5, "two stills, two clips, a motion")
        #expect(abs((counts["footage_seconds"] as? Double ?? 0) - 4) < 0.2, "the clips' 3 s and the motion's 1 s")
        let videos = Self.videos(site)
        #expect(videos.count == 3, "\(videos)")
        #expect(videos.allSatisfy { $0.hasSuffix("p.mp4") })
        for video in videos {
            let bytes = try Data(contentsOf: site.folder.file("public/images/\(video)"))
            #expect(bytes.range(of: Data("59.9139".utf8)) == nil, "\(video) carries no place")
        }
        // The turned clip: 240 wide, 320 high, as the phone showed it.
        let grid = try DownloadsTests.read(site, "index.html")
        let tile = try DownloadsTests.value(of: "data-video", after: "id=\"b-phone", in: grid)
        #expect(tile.hasSuffix("p.mp4 video/mp4 240"), "\(tile)")
        #expect(grid.contains("id=\"b-phone\""), "the clip's page is named without its extension")
        #expect(grid.contains("<time datetime=\"PT2S\">0:02</time>"))
        #expect(grid.contains("<span class=\"visually-hidden\">Video</span>"))
        #expect(!grid.contains("IMG_0002-MOV") && !grid.contains("IMG_0002.MOV"))
        let motion = try DownloadsTests.value(of: "data-motion", after: "id=\"img-0002", in: grid)
        #expect(motion.hasPrefix("images/") && motion.hasSuffix("p.mp4 video/mp4 240"), "\(motion)")
        #expect(videos.contains(String(motion.dropFirst("images/".count).split(separator: " ")[0])))
        #expect(try DownloadsTests.value(of: "data-full", after: "id=\"img-0002", in: grid).hasSuffix(".webp"))
        let pages = site.folder.allFiles(under: "public/photos")
        let page = try DownloadsTests.read(
            site, "photos/" + (try #require(pages.first { $0.hasPrefix("b-phone") })))
        #expect(page.contains("<video class=\"clip\" controls playsinline preload=\"none\" poster=\"../images/"))
        #expect(page.contains("width=\"240\" height=\"320\""))
        #expect(page.contains("<source src=\"../images/") && page.contains("type=\"video/mp4\">"))
        #expect(page.contains("<meta property=\"og:video\" content=\"https://example.org/g/images/"))
        #expect(page.contains("<time datetime=\"2024-05-01T10:20:30Z\""), "the time the clip was recorded")
        #expect(page.contains("1 May 2024, 10:20 UTC</time>"), "no photo beside it says its zone: marked as UTC")
        #expect(!page.contains("<div class=\"caption\">"), "no caption but the title, said once")
        // Feeds and the sitemap name the clip's video beside its poster.
        let sitemap = try DownloadsTests.read(site, "sitemap.xml")
        #expect(sitemap.contains("<video:content_loc>https://example.org/g/images/"))
        #expect(sitemap.contains("<video:duration>2</video:duration>"))
        #expect(try DownloadsTests.read(site, "feed.xml").contains("<link rel=\"enclosure\" type=\"video/mp4\""))
        let feed = try JSONSerialization.jsonObject(with: Data(contentsOf: site.folder.file("public/feed.json")))
        let items = (feed as? [String: Any])?["items"] as? [[String: Any]] ?? []
        let attachments = items.compactMap { ($0["attachments"] as? [[String: Any]])?.first }
        #expect(attachments.count == 2, "the clips', not the Live Photo's")
        #expect(attachments.allSatisfy { $0["mime_type"] as? String == "video/mp4" })
        // The photo's page has no video.
        let photoPage = try DownloadsTests.read(
            site, "photos/" + (try #require(pages.first { $0.hasPrefix("a-photo") })))
        #expect(!photoPage.contains("<video"))

        // Nothing changed: nothing transcoded, the videos untouched.
        let before = try site.snapshot()
        let again = try await #require(try Self.build(site)["counts"] as? [String: Any])
        #expect(again["processed"] as? Int == 0)
        #expect(again["footage_seconds"] as? Double == 0)
        let after = try site.snapshot()
        for video in videos { #expect(before["images/\(video)"]?.1 == after["images/\(video)"]?.1) }

        // Other heights: the clips are made again, the photos are not.
        try site.folder.write(
            "title: Clips\nfeed: photos\nimages:\n  widths: [64, 128]\nvideo:\n  heights: [120, 180]\n",
            to: "gallery.yml")
        let changed = try await #require(try Self.build(site)["counts"] as? [String: Any])
        #expect(changed["processed"] as? Int == 3, "the clips and the motion")
        #expect(
            Self.videos(site).map { $0.split(separator: "-").last.map(String.init) ?? "" }.sorted()
                == ["120p.mp4", "120p.mp4", "120p.mp4", "180p.mp4", "180p.mp4", "180p.mp4"])
    }

    /// A clip's `creation_time` is UTC: shown in the zone of the photo beside it that says one
    /// (shot at 10:20 UTC is 12:20 in Oslo in May).
    @Test func aClipsTimeInUTCTakesTheZoneOfThePhotosBesideIt() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let site = try await offTheCooperativeThreads {
            let site = try Self.site()
            try PublishedPlaceTests.write(
                ["-EXIF:DateTimeOriginal=2024:05:01 12:05:00", "-EXIF:OffsetTimeOriginal=+02:00"],
                site.folder.file("photos/a-photo.jpg"))
            return site
        }
        _ = try await Self.build(site)
        let pages = site.folder.allFiles(under: "public/photos")
        let page = try DownloadsTests.read(site, "photos/" + (try #require(pages.first { $0.hasPrefix("b-phone") })))
        #expect(page.contains(#"<time datetime="2024-05-01T12:20:30+02:00">1 May 2024, 12:20</time>"#), "\(page)")
    }

    /// Every file a site of clips, a Live Photo and a photo with a place publishes, originals
    /// offered, read back with exiftool: no place (`location: city` and `off`).
    @Test(arguments: ["city", "off"])
    func noPublishedClipOrStillSaysWhereItWasTaken(location: String) async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        // ffmpeg's clips and exiftool's places made off the cooperative threads.
        let site = try await offTheCooperativeThreads {
            let site = try Self.site("downloads: original\nlocation: \(location)")
            for name in ["a-photo.jpg", "IMG_0002.JPG"] {
                try PublishedPlaceTests.write(PublishedPlaceTests.gpsArguments, site.folder.file("photos/\(name)"))
            }
            try PublishedPlaceTests.write(
                ["-Keys:GPSCoordinates=59.913868, 10.752245, 23"], site.folder.file("photos/IMG_0002.MOV"))
            return site
        }
        let sources = site.folder.allFiles(under: "photos").map { site.folder.file("photos/\($0)") }
        let before = try await PublishedPlaceTests.placesFound(in: sources)
        for name in ["a-photo.jpg", "IMG_0002.JPG", "IMG_0002.MOV", "b-phone.MOV"] {
            #expect(before.contains { $0.hasPrefix(name + ":") }, "\(name) had a place")
        }
        let report = try await Self.build(site)
        #expect(report["exit_code"] as? Int == 0)
        let published = site.folder.allFiles(under: "public").filter {
            $0.hasPrefix("images/") || $0.hasPrefix("originals/") || $0.hasPrefix("downloads/")
        }.map { site.folder.file("public/\($0)") }
        #expect(
            published.contains { $0.pathExtension == "mp4" } && published.contains { $0.path.contains("/originals/") })
        let found = try await PublishedPlaceTests.placesFound(in: published)
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
    }

    @Test func onATerminalTheProgressBarSaysTheFootageDone() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Clips\nfeed: photos\nimages:\n  widths: [64]\n", to: "gallery.yml")
        try TestClip.make(.plainMP4, named: "a.mp4", in: site.folder.file("photos"))
        try TestClip.make(.silentMP4, named: "b.mp4", in: site.folder.file("photos"))
        // script(1) gives the build a terminal, where the bar is drawn.
        let run = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/script"),
            ["-q", "-e", "-c", "\(CommandRun.binary.path) build \(site.url.path)", "/dev/null"],
            environment: ["TERM": "xterm", "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        #expect(run.status == 0, "\(run.standardOutput)")
        #expect(run.standardOutput.contains("Making thumbnails"), "\(run.standardOutput)")
        #expect(run.standardOutput.contains(" · clips 3/3 s"), "\(run.standardOutput)")
    }

    @Test func aBrokenClipIsAFailedTileAndALongOneNamesTheLimit() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Clips\nfeed: photos\nimages:\n  widths: [64]\nvideo:\n  max_duration: 1\n", to: "gallery.yml")
        try TestClip.make(.truncated, named: "a-broken.mp4", in: site.folder.file("photos"))
        try TestClip.make(.plainMP4, named: "b-long.mp4", in: site.folder.file("photos"))
        try TestClip.make(.silentMP4, named: "c-short.mp4", in: site.folder.file("photos"))
        let report = try await Self.build(site)
        let failures = report["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 2)
        let messages = failures.compactMap { $0["message"] as? String }
        #expect(messages.contains { $0.hasPrefix("photos/a-broken.mp4: ") })
        #expect(messages.contains { $0.contains("b-long.mp4") && $0.contains("over video.max_duration (1 s)") })
        #expect(failures.contains { $0["cause"] as? String == "over the video limits" })
        #expect(Self.videos(site).count == 1)
        #expect(site.folder.allFiles(under: ".gallerygen-cache").allSatisfy { !AtomicFile.isTemporaryName($0) })
    }

    @Test func aPlaylistOrAScriptDressedAsAClipIsNeverFollowed() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Hostile\nfeed: photos\nimages:\n  widths: [64]\n", to: "gallery.yml")
        // An HLS playlist and an ffconcat script naming a file of the machine, one of them behind
        // a QuickTime box header: ffmpeg would read what they name if it guessed their format.
        _ = try site.folder.write("#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n#EXT-X-ENDLIST\n", to: "photos/a.mp4")
        var boxed = Data([0, 0, 0, 20]) + Data("ftypisom".utf8) + Data(repeating: 0, count: 8)
        boxed += Data("ffconcat version 1.0\nfile /etc/passwd\n".utf8)
        _ = try site.folder.write(boxed, to: "photos/b.mov")
        try TestClip.make(.silentMP4, named: "c.mp4", in: site.folder.file("photos"))
        let report = try await Self.build(site)
        let failures = report["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 2, "\(failures)")
        #expect(failures.contains { ($0["message"] as? String)?.hasPrefix("photos/a.mp4: ") == true })
        #expect(failures.contains { $0["cause"] as? String == "not a video ffmpeg reads" })
        #expect(Self.videos(site).count == 1)
        for (path, file) in try site.snapshot() {
            #expect(file.0.range(of: Data("root:x:0:0".utf8)) == nil, "\(path) holds nothing of /etc/passwd")
        }
    }

    @Test func withoutFFmpegClipsAreLeftOutWithAWarning() async throws {
        let site = try Self.site()
        let report = try await Self.build(site, environment: ["PATH": "/nonexistent"])
        #expect(report["exit_code"] as? Int == 0)
        let counts = try #require(report["counts"] as? [String: Any])
        #expect(counts["photos"] as? Int == 2)
        #expect(counts["failed"] as? Int == 0)
        let warnings = report["warnings"] as? [String] ?? []
        #expect(
            warnings.contains {
                $0.hasPrefix("photos/b-phone.MOV: a clip, and ffmpeg is not installed")
                    && $0.hasSuffix("left out of the gallery")
            }, "\(warnings)")
        #expect(
            warnings.contains { $0.hasPrefix("photos/IMG_0002.MOV: the motion of a Live Photo: a clip, and ffmpeg") },
            "the still is shown alone: \(warnings)")
        #expect(Self.videos(site).isEmpty)
        let grid = try DownloadsTests.read(site, "index.html")
        #expect(!grid.contains("b-phone") && grid.contains("id=\"img-0002\"") && !grid.contains("data-motion"))
    }
}

/// A build interrupted while ffmpeg transcodes stops it at once and leaves nothing half-made.
@Suite struct VideoInterruptTests {
    @Test func sigintDuringATranscodeStopsFFmpegAndExits130() async throws {
        try #require(TestClip.ffmpegIsInstalled, "ffmpeg is installed by `make test-deps`")
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Long\nfeed: photos\nimages:\n  widths: [64]\n", to: "gallery.yml")
        _ = try WhatPhotosSayTests.photo(site, "a.jpg", shade: 40)
        #expect(try await CommandRun.gallerygen(["build", site.url.path]).status == 0)
        let before = try site.snapshot()
        let clip = try TestClip.make(.long, named: "long-clip.mp4", in: site.folder.file("photos"))

        let process = Process()
        process.executableURL = CommandRun.binary
        process.arguments = ["build", site.url.path, "--quiet"]
        try process.run()
        try await waitUntil(seconds: 30, "ffmpeg transcodes the clip") {
            TestClip.runningFFmpeg(naming: clip.path).contains { $0.contains("libx264") }
        }
        let clock = ContinuousClock()
        let interrupted = clock.now
        process.interrupt()
        try? await waitUntil(seconds: 15, "gallerygen exits") { !process.isRunning }
        let took = clock.now - interrupted
        #expect(!process.isRunning, "exits after SIGINT (took \(took))")
        #expect(process.terminationStatus == 130)
        #expect(took < .seconds(10), "ffmpeg was stopped, not waited for (took \(took))")
        #expect(TestClip.runningFFmpeg(naming: clip.path).isEmpty, "no ffmpeg left running")
        let cacheFiles = site.folder.allFiles(under: ".gallerygen-cache")
        #expect(cacheFiles.filter { $0.contains(".tmp-") }.isEmpty, "no partial file: \(cacheFiles)")
        #expect(!cacheFiles.contains { $0.hasSuffix(".mp4") }, "no video recorded from a transcode cut short")
        #expect(before.mapValues(\.0) == (try site.snapshot()).mapValues(\.0), "the previous site stands")
    }
}
