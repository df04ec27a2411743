import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Rendering

@Suite struct SiteRendererTests {
    static let themeDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Rendering/Theme")
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Golden")

    func renderer(pageSize: Int = 60) async throws -> SiteRenderer {
        try await SiteRenderer(configuration: .init(themeDirectory: Self.themeDirectory, pageSize: pageSize))
    }

    static func item(
        _ index: Int, title: String? = nil, album: String? = nil, formats: [ImageFormat] = [.webp], failed: Bool = false
    )
        -> GalleryItem
    {
        let photo = Photo(
            index: index,
            id: "\(index + 1)",
            title: title ?? "Photo \(index + 1)",
            source: URL(string: "https://cdn.example.com/\(index).jpg")!,
            album: album
        )
        if failed {
            return GalleryItem(photo: photo, image: nil, failure: "https://cdn.example.com/\(index).jpg: HTTP 404")
        }
        let renditions = formats.flatMap { format in
            [480, 960].map { width in
                Rendition(
                    format: format, width: width, height: width * 3 / 4,
                    path: "images/h\(index)-\(width).\(format.fileExtension)", byteCount: 100)
            }
        }
        let image = ProcessedImage(
            width: 1200, height: 900, renditions: renditions,
            placeholder: Placeholder(color: "#336699", dataURI: "data:image/webp;base64,UklGRg=="))
        return GalleryItem(photo: photo, image: image)
    }

    @Test func aPanoramaInTheSecondRowAsksForItsImageFirst() async throws {
        var items = (0..<30).map { Self.item($0) }
        let wide = [480, 960].map { width in
            Rendition(
                format: .webp, width: width, height: width * 2 / 7, path: "images/wide-\(width).webp", byteCount: 100)
        }
        items[12] = GalleryItem(
            photo: items[12].photo,
            image: ProcessedImage(
                width: 3500, height: 1000, renditions: wide,
                placeholder: Placeholder(color: "#336699", dataURI: "data:image/webp;base64,UklGRg==")))
        let html = try page(
            try await renderer().render(Gallery(title: "G", introHTML: "", baseURL: nil, items: items)), "index.html")
        let tiles = html.components(separatedBy: "\n").filter { $0.hasPrefix("<li class=\"photo") }
        #expect(tiles.count == 30)
        #expect(tiles[12].contains(#"loading="lazy" fetchpriority="high""#), "\(tiles[12].prefix(300))")
        #expect(tiles[0].contains(#"loading="eager" fetchpriority="high""#))
        #expect(tiles[13].contains(#"loading="lazy" fetchpriority="low""#))
    }

    func page(_ files: [RenderedFile], _ path: String) throws -> String {
        let file = try #require(files.first { $0.path == path })
        return String(decoding: file.contents, as: UTF8.self)
    }

    /// Compares with a golden file; `GALLERYGEN_RECORD=1 swift test` writes the golden files anew
    /// and fails, as swift-argument-parser's `assertSnapshot` does, so that a recording run can
    /// never pass for a checking one.
    func assertGolden(_ text: String, named name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
        throws
    {
        let file = Self.goldenDirectory.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["GALLERYGEN_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: Self.goldenDirectory, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
            Issue.record(
                "recorded Golden/\(name); check the change and run again without GALLERYGEN_RECORD",
                sourceLocation: sourceLocation)
            return
        }
        let golden = try String(contentsOf: file, encoding: .utf8)
        #expect(
            text == golden, "differs from Golden/\(name); re-record with GALLERYGEN_RECORD=1 if intended",
            sourceLocation: sourceLocation)
    }

    @Test func defaultThemeMatchesTheGoldenPages() async throws {
        let items = [
            Self.item(0, title: "Harbour", album: "Coast"),
            Self.item(1, title: "Ridge", album: "Hills", formats: [.avif, .webp, .jpeg]),
            Self.item(2, title: "Gone", album: "Coast", failed: true),
        ]
        let gallery = Gallery(
            title: "Field notes", introHTML: "<p>Hello</p>\n", baseURL: "https://example.org/g", items: items)
        let files = try await renderer(pageSize: 2).render(gallery)

        #expect(
            files.map(\.path) == [
                "index.html", "page-2.html", "album-coast.html", "album-hills.html", "photos/harbour-1.html",
                "photos/ridge-2.html", "feed.xml", "feed.json", "sitemap.xml", "assets/start.js",
                "assets/style.css", "assets/viewer.js",
            ])
        for name in [
            "index.html", "page-2.html", "album-coast.html", "photos/ridge-2.html", "feed.xml", "feed.json",
            "sitemap.xml",
        ] {
            try assertGolden(try page(files, name), named: name.replacingOccurrences(of: "/", with: "-"))
        }
    }

    /// Runs of 24 tiles named w0, w1, w2 in turn on each page: style.css shows a tile while the page
    /// arrives once the run after next has begun (docs/themes.md).
    @Test func tilesComeInWavesOfTwentyFourOnEachPage() async throws {
        let items = (0..<100).map { Self.item($0) }
        let files = try await renderer(pageSize: 75).render(
            Gallery(title: "G", introHTML: "", baseURL: nil, items: items))
        for (name, count) in [("index.html", 75), ("page-2.html", 25)] {
            let waves = try page(files, name).components(separatedBy: #"<li class="photo "#).dropFirst().map {
                String($0.prefix(2))
            }
            #expect(waves == (0..<count).map { "w\($0 / 24 % 3)" }, "\(name)")
        }
    }

    @Test func markupFollowsTheLoadingContract() async throws {
        let items = (0..<6).map { Self.item($0) }
        let html = try page(
            try await renderer().render(Gallery(title: "G", introHTML: "", baseURL: nil, items: items)), "index.html")
        let images = html.components(separatedBy: "<img ").dropFirst().map { String($0.prefix { $0 != ">" }) }
        #expect(images.count == 6)
        for (offset, tag) in images.enumerated() {
            #expect(tag.contains(#"srcset="images/h\#(offset)-480.webp 480w, images/h\#(offset)-960.webp 960w""#))
            #expect(tag.contains(#"src="images/h\#(offset)-480.webp""#))
            // 4:3 tiles in rows of 300, 220 and 110 pixels, drawn up to 1.3 times their basis.
            #expect(tag.contains(#"sizes="(min-width: 1600px) 520px, (min-width: 700px) 382px, 191px""#))
            #expect(tag.contains(#"width="480" height="360""#))
            #expect(tag.contains(#"alt="Photo \#(offset + 1)""#))
            #expect(tag.contains(#"decoding="async""#))
            #expect(
                tag.contains("style=\"background-color:#336699;background-image:url(data:image/webp;base64,UklGRg==)\"")
            )
            if offset < 4 {
                #expect(tag.contains(#"loading="eager" fetchpriority="high""#), "first row is eager")
            } else {
                // The rest is lazy, and low in priority: those in view wait behind the first row.
                #expect(tag.contains(#"loading="lazy" fetchpriority="low""#), "the rest is lazy")
            }
        }
        #expect(
            html.contains(
                #"<li class="photo w0" id="photo-1-1" style="--ar:1.3333"><figure><a href="photos/photo-1-1.html" data-full="images/h0-960.webp">"#
            ),
            "links to the photo page, names the largest")
    }

    @Test func feedTextIsEscaped() async throws {
        let evil = "<script>alert(1)</script>\" onload=\"x"
        let gallery = Gallery(
            title: "<b>T</b>", introHTML: "", baseURL: nil,
            items: [Self.item(0, title: evil, album: "<i>a</i>"), Self.item(1, album: "b")])
        let files = try await renderer().render(gallery)
        for file in files where file.path.hasSuffix(".html") {
            let html = String(decoding: file.contents, as: UTF8.self)
            #expect(!html.contains("<script>"), "\(file.path)")
            #expect(!html.contains("<b>T</b>") && !html.contains("<i>a</i>"))
            #expect(!html.contains("\" onload=\""))
        }
        #expect(try page(files, "index.html").contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot; onload=&quot;x"))
    }

    /// Mustache escapes by Character: a quote followed by a combining mark (or after a prepended
    /// mark) is one Character that is not `"`, and went out raw, closing the attribute.
    @Test func aQuoteJoinedToAMarkIsEscapedToo() async throws {
        let evils = [
            "x\"\u{301} onmouseover=alert(1) y=\"", "x'\u{200D} onfocus=alert(2)", "\u{600}\" onclick=alert(3)",
            "<\u{FE0F}img src=x onerror=alert(4)>", "&\u{301}amp;",
        ]
        let items = evils.enumerated().map { offset, evil in
            var item = Self.item(offset, title: evil, album: evil)
            // What a photo says reaches its page, its JSON-LD and the feeds.
            item.image?.metadata = PhotoMetadata(
                description: evil + "\n\n" + evil, alt: evil, keywords: [evil], creator: evil, rights: evil)
            return item
        }
        let files = try await renderer().render(Gallery(title: evils[0], introHTML: "", baseURL: nil, items: items))
        for file in files where file.path.hasSuffix(".html") {
            let bytes = file.contents
            // No raw quote, angle bracket or ampersand of the titles survives: search the bytes,
            // since String's search compares Characters and would not see them either.
            let raw = ["\"\u{301}", "'\u{200D}", "\u{600}\"", "<\u{FE0F}", "&\u{301}"].filter {
                bytes.contains(Array($0.utf8))
            }
            #expect(raw.isEmpty, "\(file.path): raw \(raw.map { $0.unicodeScalars.map(\.value) })")
            #expect(bytes.contains(Array("&quot;".utf8)), "\(file.path): the site title's quote, escaped")
            try HTMLCheck.assertWellFormed(String(decoding: bytes, as: UTF8.self))
        }
        #expect(try page(files, "index.html").contains("&#39;"))
    }

    @Test func specialCharactersStandAloneAfterPreparation() {
        for text in ["a\"\u{301}b", "\u{600}'", "<\u{FE0F}&\u{200D}>\u{20E3}"] {
            let prepared = text.escapableInTemplates
            let specials = prepared.filter { $0.unicodeScalars.contains { "\"'<>&".unicodeScalars.contains($0) } }
            #expect(specials.allSatisfy { $0.unicodeScalars.count == 1 }, "\(prepared.unicodeScalars.map(\.value))")
            #expect(prepared.unicodeScalars.filter { $0 != "\u{200B}" }.elementsEqual(text.unicodeScalars))
        }
        let plain = "Sunset <over> the \"bay\" & café"
        #expect(plain.escapableInTemplates == plain)
    }

    @Test func pagesLinkToEachOther() async throws {
        let items = (0..<5).map { Self.item($0) }
        let files = try await renderer(pageSize: 2).render(
            Gallery(title: "G", introHTML: "<p>i</p>", baseURL: nil, items: items))
        #expect(
            files.filter { $0.path.hasSuffix(".html") && !$0.path.hasPrefix("photos/") }.map(\.path) == [
                "index.html", "page-2.html", "page-3.html",
            ])
        let second = try page(files, "page-2.html")
        #expect(second.contains(#"rel="prev" href="index.html""#) && second.contains(#"rel="next" href="page-3.html""#))
        #expect(!second.contains("<p>i</p>"), "the intro is on the first page only")
        #expect(try page(files, "index.html").contains("<p>i</p>"))
    }

    @Test func manyPagesLinkToTheEndsAndTheNeighboursOnly() async throws {
        let items = (0..<20).map { Self.item($0) }
        let files = try await renderer(pageSize: 1).render(
            Gallery(title: "G", introHTML: "", baseURL: nil, items: items))
        let tenth = try page(files, "page-10.html")
        let numbers = tenth.components(separatedBy: "<ol>")[1].components(separatedBy: "</ol>")[0]
            .components(separatedBy: "<li>").dropFirst()
            .map { $0.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression).trimmingWhitespace() }
        #expect(numbers == ["1", "…", "8", "9", "10", "11", "12", "…", "20"])
        #expect(tenth.contains(#"<span aria-current="page">10</span>"#))
        #expect(tenth.contains(#"<a href="page-20.html">20</a>"#) && tenth.contains(#"<a href="index.html">1</a>"#))
        try HTMLCheck.assertWellFormed(tenth)
    }

    @Test func pageWindow() {
        #expect(PagePlan.pageWindow(current: 1, count: 1) == [1])
        #expect(PagePlan.pageWindow(current: 1, count: 5) == [1, 2, 3, 4, 5])
        #expect(PagePlan.pageWindow(current: 1, count: 9) == [1, 2, 3, nil, 9])
        // A gap of a single page shows the page.
        #expect(PagePlan.pageWindow(current: 5, count: 9) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(PagePlan.pageWindow(current: 6, count: 10) == [1, nil, 4, 5, 6, 7, 8, 9, 10])
        #expect(PagePlan.pageWindow(current: 167, count: 167) == [1, nil, 165, 166, 167])
    }

    @Test func manyAlbumsGetAnAlbumsPageInsteadOfAHeaderOfLinks() async throws {
        let items = (0..<26).map { Self.item($0, title: "P\($0)", album: "Album \($0 / 2)") }
        let files = try await renderer().render(Gallery(title: "G", introHTML: "", baseURL: nil, items: items))
        #expect(files.contains { $0.path == "albums.html" })
        #expect(files.filter { $0.path.hasPrefix("album-") }.count == 13)
        let index = try page(files, "index.html")
        #expect(index.contains(#"<a href="albums.html">Albums</a></li>"#), "without a count, on every page")
        #expect(!index.contains("album-album-0.html"), "no header link per album")
        let albums = try page(files, "albums.html")
        #expect(albums.components(separatedBy: "class=\"photo\"").count - 1 == 13)
        #expect(albums.contains(#"<a href="album-album-12.html">Album 12</a>"#))
        try HTMLCheck.assertWellFormed(albums)
    }

    @Test func aMissingThemeSaysWhere() async {
        let folder = URL(fileURLWithPath: "/nonexistent-theme")
        await #expect(throws: RenderingError.self) {
            try await SiteRenderer(configuration: .init(themeDirectory: folder))
        }
    }

    @Test func slugs() {
        #expect(PagePlan.slugify("Quiet Places!") == "quiet-places")
        #expect(PagePlan.slugify("1") == "1")
        // Other scripts and accents are spelled in ASCII, not dropped (issue 10).
        #expect(PagePlan.slugify("accentué") == "accentue")
        #expect(PagePlan.slugify("Ærø Straße, Łódź") == "aero-strasse-lodz")
        #expect(PagePlan.slugify("2019 / Ελλάδα") == "2019-ellada")
        #expect(PagePlan.slugify("日本") == "ri-ben")
        #expect(PagePlan.slugify("🙂") == "album")
    }
}
