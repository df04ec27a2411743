import Foundation
import GalleryCore
import TestSupport
import Testing

/// `downloads:` built by the command from a folder of albums: each photo's download button,
/// each album's zip (read back by Python's zipfile), what a rebuild does to them, and where a
/// photo was taken kept out of the originals unless `location: exact`.
@Suite(.serialized) struct DownloadsTests {
    /// Coast (two photos, and Rocks inside it with one), Forest (one); photos/Coast/a.jpg
    /// carries a place in EXIF and XMP, and its creator.
    static func site(_ config: String) async throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Downloads\nfeed: photos\nimages:\n  widths: [64, 128]\n  formats: [webp, jpeg]\n\(config)\n",
            to: "gallery.yml")
        for folder in ["photos/Coast/Rocks", "photos/Forest"] {
            try FileManager.default.createDirectory(at: site.folder.file(folder), withIntermediateDirectories: true)
        }
        for (index, name) in ["Coast/a.jpg", "Coast/b.jpg", "Coast/Rocks/c.jpg", "Forest/d.jpg"].enumerated() {
            _ = try WhatPhotosSayTests.photo(site, name, shade: 30 + 40 * index)
        }
        try await WhatPhotosSayTests.exiftool(
            [
                "-GPSLatitude=59.913868", "-GPSLatitudeRef=N", "-GPSLongitude=10.752245", "-GPSLongitudeRef=E",
                "-XMP-exif:GPSLatitude=59.913868 N", "-XMP-exif:GPSLongitude=10.752245 E",
                "-XMP-dc:Creator=Ada Lovelace",
            ], site.folder.file("photos/Coast/a.jpg"))
        return site
    }

    static func build(_ site: FixtureSite) async throws -> [String: Any] {
        let report = site.folder.file("report.json")
        let run = try await CommandRun.gallerygen(["build", site.url.path, "--report", report.path])
        #expect(run.status == 0, "\(run.standardError)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        return try #require(json?["counts"] as? [String: Any])
    }

    static func read(_ site: FixtureSite, _ path: String) throws -> String {
        try String(contentsOf: site.folder.file("public/\(path)"), encoding: .utf8)
    }

    /// The first `attribute="…"` value after `marker` in `page`.
    static func value(of attribute: String, after marker: String, in page: String) throws -> String {
        let start = try #require(page.range(of: marker), "\(marker) in \(page)")
        let rest = page[start.upperBound...]
        let open = try #require(rest.range(of: attribute + "=\""))
        let tail = rest[open.upperBound...]
        return String(tail[..<(tail.firstIndex(of: "\"") ?? tail.endIndex)])
    }

    /// The names and contents in a zip, by Python's zipfile, after its own CRC check.
    static func zipContents(_ zip: URL) async throws -> [(String, Data)] {
        let run = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                "import sys, zipfile, base64\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\n"
                    + "for n in z.namelist(): print(n + '\\t' + base64.b64encode(z.read(n)).decode())",
                zip.path,
            ])
        #expect(run.status == 0, "\(run.standardError)")
        return run.standardOutput.split(separator: "\n").map { line in
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false)
            return (String(parts[0]), Data(base64Encoded: String(parts.count > 1 ? parts[1] : "")) ?? Data())
        }
    }

    func coastZip(_ site: FixtureSite) throws -> URL {
        let page = try Self.read(site, "album-coast.html")
        let href = try Self.value(of: "href", after: #"<p class="download">"#, in: page)
        #expect(try Self.value(of: "download", after: #"<p class="download">"#, in: page) == "Coast.zip")
        #expect(page.contains("Download the album</a> <span class=\"details\">(ZIP, 3 photos, "), "\(page)")
        #expect(href.hasPrefix("downloads/") && href.hasSuffix(".zip"))
        return site.folder.file("public/\(href)")
    }

    /// A site built with `config`, the page of photos/Coast/a.jpg and its download's address.
    static func built(_ config: String) async throws -> (site: FixtureSite, page: String, href: String) {
        let site = try await Self.site(config)
        _ = try await Self.build(site)
        let page = try WhatPhotosSayTests.page(site, containing: #"download="a.jpg""#)
        return (site, page, try Self.value(of: "href", after: #"<p class="download">"#, in: page))
    }

    @Test func originalsWithoutTheirPlaceAndAZipPerAlbum() async throws {
        let (site, page, href) = try await Self.built("downloads: original")
        #expect(href.hasPrefix("../originals/") && href.hasSuffix(".jpg"), "\(href)")
        #expect(page.contains(">Download original</a> <span class=\"details\">(JPEG, "))
        let original = site.folder.file("public/" + href.dropFirst(3))
        let source = try Data(contentsOf: site.folder.file("photos/Coast/a.jpg"))
        let published = try Data(contentsOf: original)
        #expect(published != source, "its metadata sorted")
        // exiftool finds the creator and no place.
        let tool = try #require(WhatPhotosSayTests.exiftool)
        let said = try await CommandRun.running(tool, ["-a", "-G1", "-s", original.path])
        #expect(said.standardOutput.contains("Ada Lovelace"))
        #expect(!said.standardOutput.contains("GPSLatitude") && !said.standardOutput.contains("GPSLongitude"))
        #expect(
            !said.standardOutput.contains("59.9") && !said.standardOutput.contains("59 deg"), "\(said.standardOutput)")
        let before = try await CommandRun.running(
            tool, ["-a", "-G1", "-s", site.folder.file("photos/Coast/a.jpg").path])
        #expect(before.standardOutput.contains("GPSLatitude"), "the photo had a place to remove")

        let zip = try coastZip(site)
        let contents = try await Self.zipContents(zip)
        #expect(contents.map(\.0) == ["a.jpg", "b.jpg", "Rocks/c.jpg"])
        #expect(contents.first?.1 == published, "the zip holds the published original")
        let rocks = try Self.read(site, "album-coast-rocks.html")
        #expect(rocks.contains("(ZIP, 1 photo, "))
        let zipBytes = try Data(contentsOf: zip)

        // Nothing changed: nothing written. The output's zips gone: made again, byte for byte.
        await #expect(try Self.build(site)["files_written"] as? Int == 0)
        try FileManager.default.removeItem(at: site.folder.file("public/downloads"))
        _ = try await Self.build(site)
        #expect(try Data(contentsOf: zip) == zipBytes)

        // A photo of Forest changes: Forest's zip is a new file, Coast's stays, the old one goes.
        let forestBefore = try Self.value(
            of: "href", after: #"<p class="download">"#, in: Self.read(site, "album-forest.html"))
        _ = try WhatPhotosSayTests.photo(site, "Forest/d.jpg", shade: 250)
        let counts = try await Self.build(site)
        #expect(counts["processed"] as? Int == 1)
        let forestAfter = try Self.value(
            of: "href", after: #"<p class="download">"#, in: Self.read(site, "album-forest.html"))
        #expect(forestAfter != forestBefore)
        #expect(!FileManager.default.fileExists(atPath: site.folder.file("public/\(forestBefore)").path))
        #expect(try coastZip(site) == zip && Data(contentsOf: zip) == zipBytes)
        let headers = try Self.read(site, "_headers")
        for folder in ["/originals/*", "/downloads/*"] {
            #expect(headers.contains("\(folder)\n  Cache-Control: public, max-age=31536000, immutable\n"))
        }
        let manifest = try Self.read(site, Manifest.fileName)
        #expect(manifest.contains(forestAfter) && manifest.contains(String(href.dropFirst(3))))
    }

    /// `location: exact` publishes the original as it is, place and all.
    @Test func withExactLocationTheOriginalIsAsItWas() async throws {
        let (site, _, href) = try await Self.built("downloads: original\nlocation: exact")
        let published = try Data(contentsOf: site.folder.file("public/" + href.dropFirst(3)))
        #expect(published == (try Data(contentsOf: site.folder.file("photos/Coast/a.jpg"))))
    }

    /// `downloads: largest`: the largest JPEG rendition, no original anywhere, and zips of those.
    @Test func theLargestRenditionAndItsZip() async throws {
        let (site, page, href) = try await Self.built("downloads: largest")
        #expect(href.hasPrefix("../images/") && href.hasSuffix("-128.jpg"), "\(href)")
        #expect(page.contains(">Download</a> <span class=\"details\">(JPEG, "))
        #expect(site.folder.allFiles(under: "public/originals").isEmpty)
        let contents = try await Self.zipContents(try coastZip(site))
        #expect(contents.map(\.0) == ["a.jpg", "b.jpg", "Rocks/c.jpg"])
        #expect(contents.first?.1 == (try Data(contentsOf: site.folder.file("public/" + href.dropFirst(3)))))
        // Renditions carry no metadata, and so neither do their zips.
        for path in site.folder.allFiles(under: "public")
        where path.hasPrefix("images/") || path.hasPrefix("downloads/") {
            let text = String(decoding: try Data(contentsOf: site.folder.file("public/\(path)")), as: UTF8.self)
            #expect(!text.contains("59.91") && !text.contains("Ada Lovelace"), "\(path)")
        }
    }

    /// Off (the default): no button, no zip, no folder for them.
    @Test func offByDefault() async throws {
        let site = try await Self.site("")
        _ = try await Self.build(site)
        #expect(site.folder.allFiles(under: "public/originals").isEmpty)
        #expect(site.folder.allFiles(under: "public/downloads").isEmpty)
        #expect(!(try Self.read(site, "album-coast.html")).contains("class=\"download\""))
    }
}
