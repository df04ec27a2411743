import Foundation
import GalleryCore
import TestSupport
import Testing

/// What the photos say, read from files real tools wrote (`Fixtures/real-metadata`, with their
/// sources): IPTC's own reference image, sidecars from Lightroom, digiKam and macOS Photos, and
/// two iPhones' HEIC files, each field checked on its photo page.
@Suite(.serialized) struct RealMetadataTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/real-metadata")

    /// The real photos as they are; each sidecar beside a small photo of its own name.
    static func site(_ config: String) async throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Real\nfeed: photos\nimages:\n  widths: [64]\n\(config)\n", to: "gallery.yml")
        try FileManager.default.createDirectory(at: site.folder.file("photos"), withIntermediateDirectories: true)
        for name in ["IPTC-PhotometadataRef-Std2021.1.jpg", "IMG_1034.heic", "IMG_2927.heic"] {
            try FileManager.default.copyItem(
                at: fixtures.appendingPathComponent(name), to: site.folder.file("photos/\(name)"))
        }
        for (index, name) in ["lightroom", "digikam", "apple-photos-gps", "apple-photos-title"].enumerated() {
            _ = try WhatPhotosSayTests.photo(site, "\(name).jpg", shade: 40 * index)
            try FileManager.default.copyItem(
                at: fixtures.appendingPathComponent("\(name).xmp"), to: site.folder.file("photos/\(name).xmp"))
        }
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        // None, but the one that says the HEIC originals offer a rendition instead.
        let warnings = run.standardError.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.allSatisfy { $0.contains("downloads: 2 original(s) are not JPEG") }, "\(warnings)")
        return site
    }

    /// The photo page whose heading is `title`.
    static func page(_ site: FixtureSite, _ title: String) throws -> String {
        try WhatPhotosSayTests.page(site, containing: "<h1>\(title)</h1>")
    }

    @Test func eachFieldAsTheToolsWroteIt() async throws {
        let site = try await Self.site("location: exact")
        let iptc = try Self.page(site, "The Title (ref2021.1)")
        for shown in [
            "<h1>The Title (ref2021.1)</h1>", "<p>The description aka caption (ref2021.1)</p>",
            #"alt="This is the Alt Text description to support accessibility in 2021.1""#,
            #"<time datetime="2021-10-20T21:01:01+00:00">20 October 2021, 21:01</time>"#,
            ">Keyword1ref2021.1</a>", ">Keyword2ref2021.1</a>", ">Keyword3ref2021.1</a>",
            #"<span class="creator">Creator1 (ref2021.1)</span>"#,
            #"<span class="rights">Copyright (Notice) 2021.1 IPTC - www.iptc.org  (ref2021.1)</span>"#,
            #"<a class="licence" rel="license" href="https://example.com/WebStatementOfRights/2021.1">"#,
        ] {
            #expect(iptc.contains(shown), "IPTC reference: \(shown)")
        }
        let lightroom = try Self.page(site, "iptc status-title")
        for shown in [
            "<p>caption</p>", ">Brands Hatch</a>", ">Motor Sports</a>", "iptc creator-creator",
            #"<time datetime="2008-12-19">19 December 2008</time>"#,
        ] {
            #expect(lightroom.contains(shown), "Lightroom: \(shown)")
        }
        let digikam = try Self.page(site, "digikam")
        for shown in [
            "<p>2014-Drachenfest-Waterfront-Bremen</p>", ">test2</a>", #"<time datetime="2014-04-27T12:42:47">"#,
            "53.13256° N, 8.71920° E",
        ] {
            #expect(digikam.contains(shown), "digiKam: \(shown)")
        }
        // macOS Photos gives the hemisphere beside a plain decimal: Halifax is west, Santiago south.
        #expect(try Self.page(site, "apple photos gps").contains("44.64626° N, 63.56972° W"))
        let apple = try Self.page(site, "Title Photos 7 åäöÅÄÖ")
        for shown in [
            "<h1>Title Photos 7 åäöÅÄÖ</h1>", "<p>Caption Photos 7 åäöÅÄÖ</p>", ">Keyword 2 Photos 7 åäöÅÄÖ</a>",
            "33.45186° S, 70.65047° W", #"<time datetime="2000-01-01T12:00:00+02:00">"#,
        ] {
            #expect(apple.contains(shown), "macOS Photos: \(shown)")
        }
        let iphone8 = try Self.page(site, "IMG 1034")
        #expect(iphone8.contains("23.17792° N, 113.39432° E"))
        #expect(iphone8.contains(#"<time datetime="2018-02-05T15:11:44">5 February 2018, 15:11</time>"#))
        #expect(try Self.page(site, "IMG 2927").contains(#"<time datetime="2020-05-04T18:39:11-04:00">"#))
    }

    /// The default, `location: off`: none of these places in any file of the site.
    @Test func noPlaceOfTheseInAnyFile() async throws {
        let site = try await Self.site("downloads: original")
        let files = site.folder.allFiles(under: "public")
        #expect(files.contains { $0.hasPrefix("originals/") })
        for path in files {
            let text = String(decoding: try Data(contentsOf: site.folder.file("public/\(path)")), as: UTF8.self)
            for needle in ["23.177", "113.394", "44.646", "63.569", "33.451", "70.650", "53.132", "8.7192"] {
                #expect(!text.contains(needle), "\(path) holds \(needle)")
            }
        }
        // The iPhones' HEIC originals are not published without their place removed.
        let original = try Self.page(site, "IMG 1034")
        #expect(original.contains("download=\"IMG_1034.webp\"") || original.contains("download=\"IMG_1034.jpg\""))
    }

    /// A site of the real `fixtures` alone (as `photos/NAME`), built; its gallery.yml holds
    /// `config` besides a title, the folder feed and `widths`.
    static func builtAlone(_ fixtures: [String: String], config: String = "images:\n  widths: [64]")
        async throws -> (site: FixtureSite, run: CommandRun)
    {
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Real\nfeed: photos\n\(config)\n", to: "gallery.yml")
        try FileManager.default.createDirectory(at: site.folder.file("photos"), withIntermediateDirectories: true)
        for (fixture, name) in fixtures {
            try FileManager.default.copyItem(
                at: Self.fixtures.appendingPathComponent(fixture), to: site.folder.file("photos/\(name)"))
        }
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        return (site, run)
    }

    /// exiftool's test image whose XMP packet is UTF-16 (big-endian): read as exiftool reads it,
    /// its fields on the page, and no warning (one full of NUL bytes, before).
    @Test func anXMPPacketInUTF16IsRead() async throws {
        let (site, run) = try await Self.builtAlone(["exiftool-XMP.jpg": "x.jpg"])
        #expect(!run.standardError.contains("warning"), "\(run.standardError)")
        #expect(!run.standardError.contains("\u{0}"))
        // The title, keywords and licence come from the UTF-16 packet alone; its caption loses to
        // EXIF's ImageDescription, as MWG says.
        let page = try WhatPhotosSayTests.page(site, containing: "<h1>Test IPTC picture</h1>")
        for shown in [">ExifTool</a>", ">XMP</a>", #"href="https://exiftool.org/""#, "<p>A witty caption</p>"] {
            #expect(page.contains(shown), "\(shown)")
        }
    }

    /// exiv2's test image whose IPTC By-line declares no character set and holds 0x9F: read as
    /// Windows-1252 (`Jens TrŸbiger`, as exiftool shows it), not with the byte dropped.
    @Test func iptcTextWithoutACharacterSetIsWindows1252() async throws {
        let (site, _) = try await Self.builtAlone(["exiv2-iptc-no-charset.jpg": "j.jpg"])
        let page = try WhatPhotosSayTests.page(site, containing: "<h1>")
        #expect(page.contains(#"<span class="creator">Jens TrŸbiger</span>"#), "\(page)")
    }

    /// exiftool's Metadata Working Group test image: EXIF, IPTC and XMP disagree, each value
    /// saying whether MWG's rules pick it. The page shows every RIGHT one and no WRONG one, as
    /// exiftool's MWG composite tags do (its t/MWG_2.out).
    @Test func exiftoolsMWGImageReadsAsMWGSays() async throws {
        let (site, _) = try await Self.builtAlone(
            ["exiftool-MWG.jpg": "MWG.jpg"], config: "base_url: https://example.com/\nimages:\n  widths: [64]")
        let page = try WhatPhotosSayTests.page(site, containing: "<h1>")
        for shown in [
            "<p>RIGHT-EXIF-Description</p>",
            #"<span class="creator">RIGHT1of2-EXIF-Creator; RIGHT2of2-EXIF-Creator</span>"#,
            #"<span class="rights">RIGHT-XMP-Copyright</span>"#, ">RIGHT1of2-XMP-Keywords</a>",
            ">RIGHT2of2-XMP-Keywords</a>",
            #"<time datetime="2001-01-01T01:11:11">"#,
        ] {
            #expect(page.contains(shown), "\(shown)")
        }
        #expect(!page.contains("WRONG"), "\(page)")
    }

    /// An iPhone 7's HEIC through a third-party camera app: only its EXIF says to turn it (no
    /// `irot` property). Its thumbnails come out upright, 3024 wide and 4032 high as shown, and an
    /// iPhone 8's, which the container turns, stay as they were.
    @Test func aHEICTurnedOnlyByItsEXIFIsUpright() async throws {
        let (site, _) = try await Self.builtAlone(
            ["iphone-7-procam.heic": "iphone-7-procam.heic", "IMG_1034.heic": "IMG_1034.heic"],
            config: "images:\n  widths: [120]\n  formats: [jpeg]")
        let grid = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
        let vipsheader = URL(fileURLWithPath: "/usr/bin/vipsheader")
        for (id, wide, high) in [("iphone-7-procam", 120, 160), ("img-1034", 120, 90)] {
            let start = try #require(grid.range(of: "id=\"\(id)"), "\(id) in the grid")
            let tile = grid[start.upperBound...].prefix(1500)
            #expect(tile.contains(#"width="\#(wide)" height="\#(high)""#), "\(id): \(tile.prefix(600))")
            let thumbnail = try #require(
                site.folder.allFiles(under: "public/images").first { $0.hasSuffix("-120.jpg") && tile.contains($0) })
            let header = try await CommandRun.running(vipsheader, [site.folder.file("public/images/\(thumbnail)").path])
            #expect(header.standardOutput.contains("\(wide)x\(high)"), "\(id): \(header.standardOutput)")
        }
    }
}
