import Foundation
import GalleryCore
import TestSupport
import Testing

/// Photos whose metadata was written by exiftool (Debian's libimage-exiftool-perl), as the
/// tools photographers use write it, built into a site from a folder feed with sidecars.
@Suite(.serialized) struct WhatPhotosSayTests {
    static var exiftool: URL? {
        ["/usr/bin/exiftool", "/usr/local/bin/exiftool"].map(URL.init(fileURLWithPath:)).first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }

    static func exiftool(_ arguments: [String], _ file: URL) async throws {
        let run = try await offTheCooperativeThreads { try writing(arguments, into: file) }
        #expect(run.status == 0, "exiftool \(arguments): \(run.standardError)")
    }

    /// exiftool writing `arguments` into `file`, as ``exiftool(_:_:)`` runs it, with no
    /// expectation recorded: for work done on a thread of its own, where a test's expectations
    /// are not; it throws when exiftool is missing or fails.
    static func writing(_ arguments: [String], into file: URL) throws -> CommandRun {
        guard let tool = exiftool else { throw TestImageError(message: "exiftool is installed by `make test-deps`") }
        let run = try CommandRun.run(
            tool, ["-q", "-overwrite_original", "-charset", "iptc=UTF8"] + arguments + [file.path])
        return run
    }

    static func photo(_ site: FixtureSite, _ name: String, shade: Int) throws -> URL {
        let file = site.folder.file("photos/\(name)")
        var image = TestImage(width: 160, height: 120, fill: TestImage.Color(UInt8(shade), 90, 160))
        image.fillRect(x: shade % 140, y: 10, width: 20, height: 20, color: .white)
        try image.saveJPEG(to: file)
        return file
    }

    /// Four photos: one saying everything in XMP (and where it was, in GPS), one in IPTC and
    /// EXIF, one in EXIF alone, one with sidecars that override what it says itself.
    static func site(extraConfig: String = "") async throws -> FixtureSite {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Said\nfeed: photos\nimages:\n  widths: [64, 128]\n\(extraConfig)\n", to: "gallery.yml")
        let xmp = try photo(site, "a-xmp.jpg", shade: 40)
        try await exiftool(
            [
                "-XMP-dc:Title=Fjord at dawn", "-XMP-dc:Description=Mist over the water & the <hills>.",
                "-XMP-dc:Subject=fjord", "-XMP-dc:Subject=morning", "-XMP-dc:Creator=Ada Lovelace",
                "-XMP-dc:Rights=© 2024 Ada Lovelace",
                "-XMP-xmpRights:WebStatement=https://creativecommons.org/licenses/by-sa/4.0/",
                "-XMP-iptcCore:AltTextAccessibility=A grey fjord under mist", "-XMP-xmp:Rating=4",
                "-XMP-photoshop:DateCreated=2024:05:01 14:32:10+02:00",
                "-GPSLatitude=59.913868", "-GPSLatitudeRef=N", "-GPSLongitude=10.752245", "-GPSLongitudeRef=E",
            ], xmp)
        let iptc = try photo(site, "b-iptc.jpg", shade: 80)
        try await exiftool(
            [
                "-IPTC:ObjectName=Harbour", "-IPTC:Caption-Abstract=Boats at rest", "-IPTC:Keywords=harbour",
                "-IPTC:Keywords=boats", "-IPTC:By-line=Grace Hopper", "-IPTC:CopyrightNotice=© Grace",
                "-IPTC:DateCreated=2023:01:02", "-IPTC:TimeCreated=10:11:12+01:00",
                // What a camera writes where no one wrote a caption: no caption, so IPTC's shows.
                "-EXIF:ImageDescription=OLYMPUS DIGITAL CAMERA",
            ], iptc)
        let exif = try photo(site, "c-exif.jpg", shade: 120)
        try await exiftool(
            [
                "-EXIF:ImageDescription=Only EXIF here", "-EXIF:Artist=Alan Turing", "-EXIF:Copyright=© Alan",
                "-EXIF:DateTimeOriginal=2022:03:04 05:06:07", "-EXIF:OffsetTimeOriginal=-05:00",
            ], exif)
        let sidecar = try photo(site, "d-sidecar.jpg", shade: 160)
        try await exiftool(["-XMP-dc:Title=Embedded title", "-XMP-dc:Creator=Embedded creator"], sidecar)
        try site.folder.write(
            """
            ---
            title: Told by the sidecar
            keywords: [sidecar, told]
            date: 2021-06-07 08:09
            ---
            A *Markdown* caption with <script>alert(1)</script> in it.
            """, to: "photos/d-sidecar.md")
        // darktable's name for a sidecar: the whole file name, then .xmp.
        try site.folder.write(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
             xmp:Rating="5"><dc:rights><rdf:Alt><rdf:li xml:lang="x-default">From the XMP sidecar</rdf:li></rdf:Alt></dc:rights>
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """, to: "photos/d-sidecar.jpg.xmp")
        // EXIF's UserComment and XMP's CreateDate, the last of their fields' sources; a plain
        // text sidecar.
        let comment = try photo(site, "e-comment.jpg", shade: 180)
        try await exiftool(
            ["-EXIF:UserComment=Written in the comment", "-XMP-xmp:CreateDate=2019:08:07 06:05:04"], comment)
        _ = try photo(site, "f-text.jpg", shade: 220)
        try site.folder.write(
            "---\nalt: Alt from the text sidecar\n---\nA plain <b>text</b> caption.\n\nIts second paragraph.\n",
            to: "photos/f-text.txt")
        return site
    }

    static func page(_ site: FixtureSite, containing text: String) throws -> String {
        for path in site.folder.allFiles(under: "public/photos") where path.hasSuffix(".html") {
            let html = try String(contentsOf: site.folder.file("public/photos/\(path)"), encoding: .utf8)
            if html.contains(text) { return html }
        }
        Issue.record("no photo page contains \(text)")
        return ""
    }

    @Test func eachFieldFromEachSourceReachesThePhotoPage() async throws {
        let site = try await Self.site()
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")

        let xmp = try Self.page(site, containing: "<h1>Fjord at dawn</h1>")
        #expect(xmp.contains(#"<div class="caption"><p>Mist over the water &amp; the &lt;hills&gt;.</p></div>"#))
        #expect(xmp.contains(#"Taken <time datetime="2024-05-01T14:32:10+02:00">1 May 2024, 14:32</time>"#))
        #expect(
            xmp.contains(
                #"<li><a href="../keyword-fjord.html" rel="tag">fjord</a></li><li><a href="../keyword-morning.html" rel="tag">morning</a></li>"#
            ))
        #expect(xmp.contains(#"<span class="creator">Ada Lovelace</span>"#))
        #expect(xmp.contains(#"<span class="rights">© 2024 Ada Lovelace</span>"#))
        #expect(
            xmp.contains(
                #"<a class="licence" rel="license" href="https://creativecommons.org/licenses/by-sa/4.0/">CC BY-SA 4.0</a>"#
            ))
        #expect(xmp.contains(#"alt="A grey fjord under mist""#))
        try HTMLCheck.assertWellFormed(xmp)
        // schema.org's ImageObject, with nothing in it that could end its script.
        let structured = try #require(
            xmp.components(separatedBy: #"<script type="application/ld+json">"#).dropFirst().first?
                .components(separatedBy: "</script>").first)
        #expect(!structured.contains("<") && structured.contains(#"\u003chills\u003e"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(structured.utf8)) as? [String: Any])
        #expect(object["@type"] as? String == "ImageObject" && object["name"] as? String == "Fjord at dawn")
        #expect(object["caption"] as? String == "Mist over the water & the <hills>.")
        #expect(object["dateCreated"] as? String == "2024-05-01T14:32:10+02:00")
        #expect(object["keywords"] as? String == "fjord, morning")
        #expect((object["creator"] as? [String: Any])?["name"] as? String == "Ada Lovelace")
        #expect(object["license"] as? String == "https://creativecommons.org/licenses/by-sa/4.0/")
        #expect((object["contentUrl"] as? String)?.hasPrefix("../images/") == true)

        // The Atom and JSON feeds carry it too.
        let atom = try String(contentsOf: site.folder.file("public/feed.xml"), encoding: .utf8)
        #expect(
            atom.contains(#"<category term="fjord"/>"#) && atom.contains("<author><name>Ada Lovelace</name></author>"))
        #expect(atom.contains("<summary>Mist over the water &amp; the &lt;hills&gt;.</summary>"))
        #expect(atom.contains("<rights>© 2024 Ada Lovelace</rights>"))
        let feed = try JSONSerialization.jsonObject(with: Data(contentsOf: site.folder.file("public/feed.json")))
        let items = try #require((feed as? [String: Any])?["items"] as? [[String: Any]])
        let fjord = try #require(items.first { $0["title"] as? String == "Fjord at dawn" })
        #expect(fjord["tags"] as? [String] == ["fjord", "morning"])
        #expect(fjord["summary"] as? String == "Mist over the water & the <hills>.")
        #expect((fjord["authors"] as? [[String: String]])?.first?["name"] == "Ada Lovelace")
        #expect((fjord["content_html"] as? String)?.contains(#"alt="A grey fjord under mist""#) == true)

        let iptc = try Self.page(site, containing: "<h1>Harbour</h1>")
        #expect(iptc.contains("<p>Boats at rest</p>"))
        #expect(iptc.contains(#"<time datetime="2023-01-02T10:11:12+01:00">2 January 2023, 10:11</time>"#))
        #expect(
            iptc.contains(
                #"<li><a href="../keyword-harbour.html" rel="tag">harbour</a></li><li><a href="../keyword-boats.html" rel="tag">boats</a></li>"#
            ))
        #expect(iptc.contains("Grace Hopper") && iptc.contains("© Grace"))
        #expect(!iptc.contains("OLYMPUS DIGITAL CAMERA"))
        // No alt text: the description's first line.
        #expect(iptc.contains(#"alt="Boats at rest""#))

        let exif = try Self.page(site, containing: "Only EXIF here")
        #expect(exif.contains("<h1>c exif</h1>"), "the file name is the title when the photo has none")
        #expect(exif.contains(#"<time datetime="2022-03-04T05:06:07-05:00">4 March 2022, 05:06</time>"#))
        #expect(exif.contains("Alan Turing") && exif.contains("© Alan"))

        let comment = try Self.page(site, containing: "<h1>e comment</h1>")
        #expect(comment.contains("<p>Written in the comment</p>"))
        #expect(comment.contains(#"<time datetime="2019-08-07T06:05:04">7 August 2019, 06:05</time>"#))
        let text = try Self.page(site, containing: "<h1>f text</h1>")
        #expect(text.contains("<p>A plain &lt;b&gt;text&lt;/b&gt; caption.</p>\n<p>Its second paragraph.</p>"))
        #expect(text.contains(#"alt="Alt from the text sidecar""#))

        let sidecar = try Self.page(site, containing: "<h1>Told by the sidecar</h1>")
        #expect(sidecar.contains("<em>Markdown</em>"))
        #expect(!sidecar.contains("<script>alert"), "a caption's raw HTML is not let through")
        #expect(
            sidecar.contains(
                #"<li><a href="../keyword-sidecar.html" rel="tag">sidecar</a></li><li><a href="../keyword-told.html" rel="tag">told</a></li>"#
            ))
        #expect(sidecar.contains(#"<time datetime="2021-06-07T08:09:00">7 June 2021, 08:09</time>"#))
        #expect(sidecar.contains("From the XMP sidecar"), "the XMP sidecar's rights")
        #expect(sidecar.contains("Embedded creator"), "a field no sidecar gives comes from the photo")
        #expect(!sidecar.contains("Embedded title"))
        // The published manifest says no more than the pages: a title a sidecar replaced is not in it.
        let manifest = try String(contentsOf: site.folder.file("public/\(Manifest.fileName)"), encoding: .utf8)
        #expect(!manifest.contains("Embedded title") && manifest.contains("Embedded creator"))
    }

    /// Where a photo was taken is never shown: no coordinate, in any form, in any file; with
    /// `downloads: original`, not in the published originals either (the rest of what they say
    /// stays in them).
    @Test(arguments: ["", "downloads: original"])
    func noCoordinateReachesAnyFile(downloads: String) async throws {
        let site = try await Self.site(extraConfig: "exif: true\n\(downloads)")
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        let files = site.folder.allFiles(under: "public")
        #expect(files.count > 10)
        let originals = files.filter { $0.hasPrefix("originals/") }
        #expect(originals.count == (downloads.isEmpty ? 0 : 6), "every photo's: \(originals)")
        if let creator = originals.first(where: { path in
            (try? Data(contentsOf: site.folder.file("public/\(path)")))
                .map { String(decoding: $0, as: UTF8.self).contains("Ada Lovelace") } == true
        }) {
            #expect(!creator.isEmpty, "the XMP photo's original keeps its creator")
        } else {
            #expect(downloads.isEmpty, "no original keeps the XMP photo's creator")
        }
        for path in files {
            let data = try Data(contentsOf: site.folder.file("public/\(path)"))
            let text = String(decoding: data, as: UTF8.self)
            for needle in ["59.91", "10.75", "59,", "GPS", "59 deg", "N 59"] {
                #expect(!text.contains(needle), "\(path) holds \(needle)")
            }
            // A thumbnail carries no metadata at all.
            if path.hasPrefix("images/") {
                for block in ["Exif", "XMP ", "http://ns.adobe.com"] {
                    #expect(!text.contains(block), "\(path) carries \(block)")
                }
            }
        }
    }

    /// `location: city` and `exact`: the photo page links the place on OpenStreetMap, the JSON-LD
    /// and the manifest carry it, each rounded as asked, and no file holds more than that.
    @Test(arguments: [("city", "59.9", "10.8", ["59.91", "10.75"]), ("exact", "59.91387", "10.75225", ["59.913868"])])
    func aPlaceOnlyAsAskedAndRounded(
        precision: String, latitude: String, longitude: String, finer: [String]
    ) async throws {
        let site = try await Self.site(extraConfig: "location: \(precision)")
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        let page = try Self.page(site, containing: "<h1>Fjord at dawn</h1>")
        let sign = "\(latitude)° N, \(longitude)° E"
        #expect(
            page.contains(
                #"<p class="place">Taken at <a href="https://www.openstreetmap.org/?mlat="#
                    + latitude + "&amp;mlon=" + longitude), "\(page)")
        #expect(page.contains(sign))
        #expect(
            page.contains(
                #""contentLocation":{"@type":"Place","geo":{"@type":"GeoCoordinates","latitude":"#
                    + latitude + #","longitude":"# + longitude + "}}"))
        let manifest = try String(contentsOf: site.folder.file("public/\(Manifest.fileName)"), encoding: .utf8)
        #expect(manifest.contains(#""latitude":"# + latitude) || manifest.contains(#""latitude" : "# + latitude))
        // The photos without a place show none.
        #expect(!(try Self.page(site, containing: "<h1>Harbour</h1>")).contains("class=\"place\""))
        for path in site.folder.allFiles(under: "public") {
            let text = String(decoding: try Data(contentsOf: site.folder.file("public/\(path)")), as: UTF8.self)
            for needle in finer { #expect(!text.contains(needle), "\(path) holds \(needle)") }
        }
    }

    /// A HEIC photo as phones keep them (EXIF with the offset and the GPS block; made by libvips'
    /// HEIF writer, its metadata by exiftool), and an XMP sidecar as exiftool writes one
    /// (`exiftool -o NAME.xmp`), with the place in XMP's own form. The XMP inside a HEIC is not
    /// read: libvips 8.14 (Debian 12) passes on a HEIF file's EXIF only (docs/photo-metadata.md).
    @Test func aHEICAndAnExiftoolSidecarSayWhenAndWhere() async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Phone\nfeed: photos\nlocation: city\nimages:\n  widths: [64]\n", to: "gallery.yml")
        let jpeg = try Self.photo(site, "source.jpg", shade: 70)
        let heic = site.folder.file("photos/IMG_4032.HEIC")
        let vips = URL(fileURLWithPath: "/usr/bin/vips")
        let made = try await CommandRun.running(vips, ["copy", jpeg.path, heic.path + "[compression=hevc]"])
        #expect(made.status == 0, "vips (libvips-tools, with libheif) writes HEIC: \(made.standardError)")
        try FileManager.default.removeItem(at: jpeg)
        try await Self.exiftool(
            [
                "-EXIF:Make=Apple", "-EXIF:Model=iPhone 15", "-EXIF:DateTimeOriginal=2024:04:06 17:45:12",
                "-EXIF:OffsetTimeOriginal=+09:00", "-GPSLatitude=35.658581", "-GPSLatitudeRef=N",
                "-GPSLongitude=139.745433", "-GPSLongitudeRef=E", "-EXIF:ImageDescription=Tokyo Tower at dusk",
            ], heic)
        // A second photo whose place is in an XMP sidecar exiftool wrote.
        _ = try Self.photo(site, "DSC_0007.jpg", shade: 150)
        let tool = try #require(Self.exiftool)
        let sidecar = try await CommandRun.running(
            tool,
            [
                "-q", "-XMP-dc:Title=Harbour walk", "-XMP-dc:Subject=harbour", "-XMP-exif:GPSLatitude=33.856784 S",
                "-XMP-exif:GPSLongitude=151.215297 E",
                "-o", site.folder.file("photos/DSC_0007.xmp").path,
            ])
        #expect(sidecar.status == 0, "\(sidecar.standardError)")

        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        let phone = try Self.page(site, containing: "<p>Tokyo Tower at dusk</p>")
        #expect(phone.contains(#"<time datetime="2024-04-06T17:45:12+09:00">6 April 2024, 17:45</time>"#))
        #expect(phone.contains("35.7° N, 139.7° E"), "\(phone)")
        let harbour = try Self.page(site, containing: "<h1>Harbour walk</h1>")
        #expect(harbour.contains("33.9° S, 151.2° E"))
        #expect(harbour.contains(#"href="../keyword-harbour.html""#))
    }

    @Test func sortedByTimeTakenEitherWayTiesInFeedOrder() async throws {
        for (order, titles) in [
            ("oldest", ["e comment", "Told by the sidecar", "c exif", "Harbour", "Fjord at dawn"]),
            ("newest", ["Fjord at dawn", "Harbour", "c exif", "Told by the sidecar", "e comment"]),
        ] {
            // Every tile captioned, file names too: the captions show the order.
            let site = try await Self.site(extraConfig: "sort: \(order)\ntile_captions: true")
            // A photo that says nothing comes last.
            _ = try Self.photo(site, "0-silent.jpg", shade: 200)
            let run = try await CommandRun.gallerygen(["build", site.url.path])
            #expect(run.status == 0, "\(run.standardError)")
            let html = try String(contentsOf: site.folder.file("public/index.html"), encoding: .utf8)
            let positions = (titles + ["0 silent"]).map { title in
                html.range(of: ">\(title)</figcaption>")?.lowerBound
            }
            #expect(positions.allSatisfy { $0 != nil }, "\(order): \(positions)")
            #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(order)")
        }
    }

    /// A changed sidecar re-renders its photo's page and encodes nothing; a broken one is a
    /// warning naming it, and the build goes on.
    @Test func aSidecarChangeRendersAndEncodesNothing() async throws {
        let site = try await Self.site()
        let report = site.folder.file("report.json")
        #expect(try await CommandRun.gallerygen(["build", site.url.path]).status == 0)
        try site.folder.write("---\ntitle: Retold\n---\n", to: "photos/d-sidecar.md")
        try site.folder.write("<x:xmpmeta><rdf:RDF>", to: "photos/d-sidecar.jpg.xmp")
        let run = try await CommandRun.gallerygen(["build", site.url.path, "--report", report.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("d-sidecar.jpg.xmp: its XMP is not well-formed XML"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let counts = try #require(json?["counts"] as? [String: Any])
        #expect(counts["processed"] as? Int == 0)
        #expect(try Self.page(site, containing: "<h1>Retold</h1>").contains("Embedded creator"))
    }

    /// Album folders inside album folders, an album's `index.md`, and a page per keyword; a
    /// changed album description re-renders that album's page alone and encodes nothing.
    @Test func albumFoldersAndKeywordPages() async throws {
        let site = try await Self.site()
        try FileManager.default.createDirectory(
            at: site.folder.file("photos/Trips/Oslo"), withIntermediateDirectories: true)
        _ = try Self.photo(site, "Trips/h-trip.jpg", shade: 60)
        let oslo = try Self.photo(site, "Trips/Oslo/g-oslo.jpg", shade: 100)
        try await Self.exiftool(["-XMP-dc:Subject=Fjord", "-XMP-dc:Subject=city"], oslo)
        try site.folder.write(
            "---\ntitle: Trips abroad\ncover: Oslo/g-oslo.jpg\n---\nWhere we went in **2024**.\n",
            to: "photos/Trips/index.md")
        let report = site.folder.file("report.json")
        let first = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(first.status == 0, "\(first.standardError)")
        func read(_ path: String) throws -> String {
            try String(contentsOf: site.folder.file("public/\(path)"), encoding: .utf8)
        }
        let trips = try read("album-trips.html")
        #expect(trips.contains("<h2 class=\"album-title\">Trips abroad</h2>"))
        #expect(trips.contains("<p>Where we went in <strong>2024</strong>.</p>"))
        #expect(trips.contains(#"<a href="album-trips-oslo.html">Oslo</a> <span class="count">1</span>"#))
        let index = try read("index.html")
        #expect(index.contains(#"<a href="album-trips.html">Trips abroad</a></li>"#))
        #expect(trips.contains("<p>2 photos · "))
        #expect(
            try read("album-trips-oslo.html").contains(#"<li><a href="album-trips.html">Trips abroad</a></li>"#))
        // Keywords from XMP, IPTC and a sidecar, told apart without regard to case.
        let fjord = try read("keyword-fjord.html")
        #expect(fjord.contains("Photos with the keyword “fjord”"))
        #expect(fjord.components(separatedBy: #"class="photo w"#).count - 1 == 2)
        for path in ["keyword-harbour.html", "keyword-sidecar.html", "keyword-city.html", "keywords.html"] {
            #expect(FileManager.default.fileExists(atPath: site.folder.file("public/\(path)").path), "\(path)")
        }
        #expect(try Self.page(site, containing: "<h1>Fjord at dawn</h1>").contains(#"href="../keyword-fjord.html""#))

        try site.folder.write(
            "---\ntitle: Trips abroad\ncover: Oslo/g-oslo.jpg\n---\nWhere we went.\n", to: "photos/Trips/index.md")
        let second = try await CommandRun.gallerygen(["build", site.url.path, "--report", report.path])
        #expect(second.status == 0, "\(second.standardError)")
        #expect(try read("album-trips.html").contains("<p>Where we went.</p>"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any]
        let counts = try #require(json?["counts"] as? [String: Any])
        #expect(counts["processed"] as? Int == 0)
        #expect(counts["pages_rendered"] as? Int == 1, "\(counts)")
    }

    /// A photo whose XMP block is not XML, or is huge, is a warning naming it, never a failure.
    @Test func brokenEmbeddedMetadataIsAWarning() async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write("title: Broken\nfeed: photos\nimages:\n  widths: [64]\n", to: "gallery.yml")
        let file = try Self.photo(site, "broken-xmp.jpg", shade: 60)
        var jpeg = try Data(contentsOf: file)
        // An APP1 XMP segment right after the start of image, holding no well-formed XML.
        let payload = Data("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta><rdf:RDF><oops".utf8)
        let length = payload.count + 2
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        try jpeg.write(to: file)
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("broken-xmp.jpg: its XMP is not well-formed XML"), "\(run.standardError)")
        #expect(site.folder.allFiles(under: "public/photos").count == 1)
    }

    /// A day without a time (IPTC's Date Created without its Time Created; a bare XMP day) is
    /// shown as that day, not as midnight, and structured data gets the date alone.
    @Test func aDayWithoutATimeIsThatDay() async throws {
        let site = try FixtureSite(count: 0)
        try site.folder.write(
            "title: Days\nfeed: photos\nbase_url: https://example.com/\nimages:\n  widths: [64]\n", to: "gallery.yml")
        try await Self.exiftool(
            ["-IPTC:DateCreated=2019:05:17", "-IPTC:ObjectName=IPTC day"], Self.photo(site, "a.jpg", shade: 40))
        try await Self.exiftool(
            ["-XMP-photoshop:DateCreated=2018-03-09", "-XMP-dc:Title=XMP day"], Self.photo(site, "b.jpg", shade: 90))
        let run = try await CommandRun.gallerygen(["build", site.url.path])
        #expect(run.status == 0, "\(run.standardError)")
        for (title, iso, shown) in [
            ("IPTC day", "2019-05-17", "17 May 2019"), ("XMP day", "2018-03-09", "9 March 2018"),
        ] {
            let page = try Self.page(site, containing: "<h1>\(title)</h1>")
            #expect(page.contains(#"<time datetime="\#(iso)">\#(shown)</time>"#), "\(title): \(page)")
            #expect(page.contains(#""dateCreated":"\#(iso)""#), "\(title)")
            #expect(!page.contains("00:00"), "\(title)")
        }
    }
}
