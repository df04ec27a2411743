import Foundation
import FoundationXML
import GalleryCore
import TestSupport
import Testing

@testable import Rendering

/// The photo pages, the feeds and the sitemap the default theme writes beside the grid.
@Suite struct PhotoPageTests {
    func render(
        _ items: [GalleryItem], baseURL: String? = nil, showsCameraDetails: Bool = false, grid: GridStyle = .justified,
        theme: URL = SiteRendererTests.themeDirectory, tileCaptions: TileCaptions = .auto
    ) async throws -> [RenderedFile] {
        let renderer = try await SiteRenderer(
            configuration: .init(
                themeDirectory: theme, pageSize: 60, grid: grid, showsCameraDetails: showsCameraDetails,
                tileCaptions: tileCaptions))
        return try await renderer.render(Gallery(title: "Field & notes", introHTML: "", baseURL: baseURL, items: items))
    }

    func text(_ files: [RenderedFile], _ path: String) throws -> String {
        String(decoding: try #require(files.first { $0.path == path }).contents, as: UTF8.self)
    }

    static func item(_ index: Int, title: String? = nil, id: String? = nil, date: Date? = nil) -> GalleryItem {
        var item = SiteRendererTests.item(index, title: title)
        if let id { item.photo.id = id }
        item.photo.date = date
        return item
    }

    @Test func aPhotoPageHasThePhotoItsNeighboursAndTheWayBack() async throws {
        let items = (0..<3).map { Self.item($0, title: ["Harbour", "Ridge", "Dunes"][$0]) }
        let files = try await render(items, baseURL: "https://example.org/g/")
        let page = try text(files, "photos/ridge-2.html")
        try HTMLCheck.assertWellFormed(page)
        #expect(page.contains(#"<a class="previous" rel="prev" href="harbour-1.html">"#))
        #expect(page.contains(#"<a class="next" rel="next" href="dunes-3.html">"#))
        #expect(page.contains(#"<a class="back" href="../index.html#ridge-2">All photos</a>"#))
        // No "2 of 3": a photo added would change every photo page.
        #expect(!page.contains(#"class="position""#) && !page.contains("2 of 3"))
        // Large: every width, sized to the window, the box known before it loads.
        #expect(page.contains(#"srcset="../images/h1-480.webp 480w, ../images/h1-960.webp 960w""#))
        #expect(page.contains(#"sizes="(min-aspect-ratio: 1133/1000) 113vh, 100vw" width="960" height="720""#))
        // The card: absolute, the rendition nearest 1200 pixels.
        #expect(page.contains(#"<meta property="og:image" content="https://example.org/g/images/h1-960.webp">"#))
        #expect(page.contains(#"<meta property="og:url" content="https://example.org/g/photos/ridge-2.html">"#))
        #expect(page.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
        #expect(page.contains(#"<link rel="canonical" href="https://example.org/g/photos/ridge-2.html">"#))
        // The first page has no previous link, the last no next.
        #expect(!(try text(files, "photos/harbour-1.html")).contains(#"rel="prev""#))
        #expect(!(try text(files, "photos/dunes-3.html")).contains(#"rel="next""#))
    }

    @Test func withoutABaseURLThereIsNoCardAndNoSitemap() async throws {
        let files = try await render([Self.item(0)])
        let page = try text(files, "photos/photo-1-1.html")
        #expect(!page.contains("og:image") && !page.contains("og:url") && !page.contains("canonical"))
        #expect(!files.contains { $0.path == "sitemap.xml" })
        #expect(files.contains { $0.path == "feed.xml" } && files.contains { $0.path == "feed.json" })
    }

    @Test func aFailedPhotoHasNoPageAndItsNeighboursSkipIt() async throws {
        let items = [
            Self.item(0, title: "A"), SiteRendererTests.item(1, title: "B", failed: true), Self.item(2, title: "C"),
        ]
        let files = try await render(items)
        #expect(files.filter { $0.path.hasPrefix("photos/") }.map(\.path) == ["photos/a-1.html", "photos/c-3.html"])
        #expect(try text(files, "photos/a-1.html").contains(#"rel="next" href="c-3.html""#))
    }

    @Test func slugsStayWhenTheFeedChangesAroundThem() async {
        let before = [Self.item(0, title: "Harbour", id: "41"), Self.item(1, title: "Ridge", id: "42")]
        // A photo added in front moves every position, not a slug.
        var after = [Self.item(0, title: "New", id: "40")]
        after += before.enumerated().map { offset, item in
            var item = item
            item.photo.index = offset + 1
            return item
        }
        let old = await PhotoSlugs.slugs(of: before)
        let new = await PhotoSlugs.slugs(of: after)
        #expect(old[0] == "harbour-41" && old[1] == "ridge-42")
        #expect(new[1] == old[0] && new[2] == old[1])
        // No id from the feed: the image URL stands for it, hashed.
        var unnamed = Self.item(0, title: "Harbour")
        unnamed.photo.hasFeedID = false
        let slug = PhotoSlugs.slug(of: unnamed.photo)
        #expect(slug.hasPrefix("harbour-") && slug.count == "harbour-".count + 8)
        unnamed.photo.index = 7
        #expect(PhotoSlugs.slug(of: unnamed.photo) == slug, "the position is not part of it")
        // A folder feed's id is the file's name.
        var file = Self.item(0, title: "dune", id: "trips/dune.JPG")
        #expect(PhotoSlugs.slug(of: file.photo) == "dune-trips-dune")
        file.photo.id = "dune.jpg"
        #expect(PhotoSlugs.slug(of: file.photo) == "dune")
        // A repeated id: told apart in feed order.
        let twins = await PhotoSlugs.slugs(of: [Self.item(0, title: "X", id: "1"), Self.item(1, title: "X", id: "1")])
        #expect(twins[0] == "x-1" && twins[1] == "x-1-2")
        // Titles in any script are spelled in ASCII; very long ones are cut at a dash.
        let long = PhotoSlugs.slug(of: Self.item(0, title: String(repeating: "word ", count: 30), id: "9").photo)
        #expect(long.count <= PhotoSlugs.titleLength + 2 && long.hasSuffix("-9") && !long.contains("--"))
    }

    @Test func aTransparentPhotoHasNoPlaceholderBehindIt() async throws {
        var clear = Self.item(0, title: "Clear")
        clear.image?.hasTransparency = true
        let files = try await render([clear, Self.item(1, title: "Solid")])
        let index = try text(files, "index.html")
        let tags = index.components(separatedBy: "<img ").dropFirst().map { String($0.prefix { $0 != ">" }) }
        #expect(tags.count == 2)
        #expect(!tags[0].contains("style="), "nothing painted behind a photo with transparency")
        #expect(tags[1].contains("background-image:url(data:image/webp"), "an opaque photo keeps its placeholder")
        #expect(!(try text(files, "photos/clear-1.html")).contains("background-image"))
    }

    @Test func cameraDetailsOnlyWhenAskedAndNeverAPlace() async throws {
        var item = Self.item(0, title: "Ridge")
        item.image?.camera = CameraDetails(
            camera: "Canon EOS R5", lens: "RF24-70mm F2.8", focalLength: "35 mm", aperture: "ƒ/2.8",
            exposure: "1/250 s", iso: "ISO 400", taken: "2024-05-01 14:32")
        let shown = try text(try await render([item], showsCameraDetails: true), "photos/ridge-1.html")
        #expect(
            shown.contains(
                #"<p class="camera">Canon EOS R5 · RF24-70mm F2.8 · 35 mm · ƒ/2.8 · 1/250 s · ISO 400 · 2024-05-01 14:32</p>"#
            ))
        let hidden = try text(try await render([item]), "photos/ridge-1.html")
        #expect(!hidden.contains("class=\"camera\"") && !hidden.contains("Canon"))
    }

    @Test func theAtomFeedParsesBackNewestFirst() async throws {
        let day: TimeInterval = 86_400
        let items = [
            Self.item(0, title: "Old", date: Date(timeIntervalSince1970: 1_700_000_000)),
            Self.item(1, title: "New & <shiny>", date: Date(timeIntervalSince1970: 1_700_000_000 + 2 * day)),
            Self.item(2, title: "Undated"),
        ]
        let files = try await render(items, baseURL: "https://example.org/g")
        let document = try XMLDocument(data: Data(try #require(files.first { $0.path == "feed.xml" }).contents))
        let root = try #require(document.rootElement())
        #expect(root.name == "feed" && root.uri == "http://www.w3.org/2005/Atom")
        // RFC 4287's musts: the feed's id, title, updated and an author; each entry's id, title,
        // updated and a link.
        for name in ["id", "title", "updated", "author"] {
            #expect(root.elements(forName: name).count == 1, "feed has one \(name)")
        }
        #expect(root.elements(forName: "updated").first?.stringValue == "2023-11-16T22:13:20Z")
        let entries = root.elements(forName: "entry")
        #expect(
            entries.map { $0.elements(forName: "title").first?.stringValue } == ["New & <shiny>", "Old", "Undated"])
        for entry in entries {
            for name in ["id", "title", "updated"] { #expect(entry.elements(forName: name).count == 1) }
            let links = entry.elements(forName: "link")
            #expect(links.contains { Self.attribute("rel", of: $0) == "alternate" })
            let enclosure = try #require(links.first { Self.attribute("rel", of: $0) == "enclosure" })
            #expect(Self.attribute("href", of: enclosure)?.hasPrefix("https://example.org/g/images/") == true)
            #expect(entry.elements(forName: "content").first?.stringValue?.hasPrefix("<p><img src=\"https://") == true)
        }
        #expect(
            entries[0].elements(forName: "id").first?.stringValue == "https://example.org/g/photos/new-shiny-2.html")
        #expect(entries[2].elements(forName: "updated").first?.stringValue == "1970-01-01T00:00:00Z")
    }

    /// The feeds take the newest 50 photos, newest first, the later in the feed first on a tie,
    /// undated ones last, and only photos with an image and a page: as a sort of them all would.
    @Test(arguments: [130, 40]) func theFeedsTakeTheNewestAsASortWould(count: Int) {
        let base = 1_700_000_000.0
        let items = (0..<count).map { index in
            // Dates with ties (a tenth of the photos share one) and some without.
            Self.item(index, date: index % 7 == 3 ? nil : Date(timeIntervalSince1970: base + Double(index * 37 % 50)))
        }
        var slugs: [Int: String] = [:]
        for index in 0..<count where index % 11 != 5 { slugs[index] = "p\(index)" }
        let model = FeedViewModel(
            gallery: Gallery(title: "T", introHTML: "", baseURL: nil, items: items), slugs: slugs)

        let expected = items.filter { $0.image != nil && slugs[$0.photo.index] != nil }
            .sorted { a, b in
                let (x, y) = (a.photo.date ?? .distantPast, b.photo.date ?? .distantPast)
                return x != y ? x > y : a.photo.index > b.photo.index
            }
            .prefix(FeedViewModel.entryLimit)
            .map { "photos/" + slugs[$0.photo.index]! + ".html" }
        #expect(model.entries.count == expected.count && (count < 100 || expected.count == 50))
        #expect(model.entries.map(\.url) == expected)
    }

    /// An attribute's value (FoundationXML's `attribute(forName:)` misses them in a default namespace).
    static func attribute(_ name: String, of element: XMLElement) -> String? {
        element.attributes?.first { $0.name == name }?.stringValue
    }

    @Test func theJSONFeedHasEveryFieldVersion11Requires() async throws {
        let items = (0..<3).map { Self.item($0, title: $0 == 1 ? "Quote \" and \\ and \u{2028}" : nil) }
        for baseURL in ["https://example.org/g/", nil] {
            let files = try await render(items, baseURL: baseURL)
            let data = Data(try #require(files.first { $0.path == "feed.json" }).contents)
            let feed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(feed["version"] as? String == "https://jsonfeed.org/version/1.1")
            #expect(feed["title"] as? String == "Field & notes")
            #expect((feed["feed_url"] as? String) == baseURL.map { $0 + "feed.json" })
            let entries = try #require(feed["items"] as? [[String: Any]])
            #expect(entries.count == 3)
            for entry in entries {
                #expect(entry["id"] is String)
                #expect(entry["content_html"] is String || entry["content_text"] is String)
                #expect((entry["image"] as? String)?.contains("images/h") == true)
            }
            #expect(entries.map { $0["title"] as? String }.contains("Quote \" and \\ and \u{2028}"))
        }
    }

    @Test func theSitemapListsEveryPageWithItsImage() async throws {
        let files = try await render((0..<2).map { Self.item($0) }, baseURL: "https://example.org/g")
        let document = try XMLDocument(data: Data(try #require(files.first { $0.path == "sitemap.xml" }).contents))
        let urls = try #require(document.rootElement()).elements(forName: "url")
        #expect(
            urls.compactMap { $0.elements(forName: "loc").first?.stringValue } == [
                "https://example.org/g/index.html", "https://example.org/g/photos/photo-1-1.html",
                "https://example.org/g/photos/photo-2-2.html",
            ])
        let image = urls[1].elements(forName: "image:image").first?.elements(forName: "image:loc").first
        #expect(image?.stringValue == "https://example.org/g/images/h0-960.webp")
    }

    @Test func aThemeWithoutTheNewTemplatesStillBuilds() async throws {
        let folder = try TemporaryDirectory()
        let theme = folder.url.appendingPathComponent("theme")
        try FileManager.default.createDirectory(at: theme, withIntermediateDirectories: true)
        for name in ["page.mustache", "photo.mustache"] {
            try FileManager.default.copyItem(
                at: SiteRendererTests.themeDirectory.appendingPathComponent(name),
                to: theme.appendingPathComponent(name))
        }
        let files = try await render([Self.item(0, title: "Ridge")], theme: theme)
        #expect(try text(files, "photos/ridge-1.html").contains("<h1>Ridge</h1>"), "the built-in photo page")
        #expect(files.contains { $0.path == "feed.xml" } && files.contains { $0.path == "feed.json" })
        // A theme's own photo page wins.
        try "<p>{{alt}} by the theme</p>\n".write(
            to: theme.appendingPathComponent("photo-page.mustache"), atomically: true, encoding: .utf8)
        let own = try await render([Self.item(0, title: "Ridge")], theme: theme)
        #expect(try text(own, "photos/ridge-1.html") == "<p>Ridge by the theme</p>\n")
    }

    /// `tile_captions`: by default a tile shows a title it was given and not one made from a file
    /// name; a caption that says again what the image's alt text says is hidden from screen
    /// readers (they would hear it twice).
    @Test(arguments: [
        (TileCaptions.auto, [#"<figcaption aria-hidden="true">Harbour</figcaption>"#], [">IMG_0412</figcaption>"]),
        (.always, [#"<figcaption aria-hidden="true">Harbour</figcaption>"#, ">IMG_0412</figcaption>"], []),
        (.never, [], ["<figcaption"]),
    ])
    func tileCaptionsAsAsked(captions: TileCaptions, shown: [String], hidden: [String]) async throws {
        var named = Self.item(1, title: "IMG_0412")
        named.photo.titleIsFileName = true
        let index = try text(
            try await render([Self.item(0, title: "Harbour"), named], tileCaptions: captions), "index.html")
        for text in shown { #expect(index.contains(text), "\(text)") }
        for text in hidden { #expect(!index.contains(text), "\(text)") }
        #expect(index.contains(#"alt="IMG_0412""#), "the alt text stays")
    }

    /// A skip link first on every grid page, and with `base_url` an Open Graph card: the album's
    /// cover on an album page, else the page's first photo.
    @Test func gridPagesHaveASkipLinkAndACard() async throws {
        let items = [
            SiteRendererTests.item(0, title: "Harbour", album: "Coast"),
            SiteRendererTests.item(1, title: "Ridge", album: "Hills"),
        ]
        let files = try await render(items, baseURL: "https://photos.example.org/")
        let index = try text(files, "index.html")
        #expect(index.contains("<body>\n" + ##"<a class="skip" href="#photos">Skip to the photos</a>"##))
        #expect(index.contains(#"<ul id="photos" class="gallery justified">"#))
        #expect(index.contains(#"<meta property="og:url" content="https://photos.example.org/index.html">"#))
        #expect(index.contains(#"<meta property="og:image" content="https://photos.example.org/images/h0-960.webp">"#))
        let hills = try text(files, "album-hills.html")
        #expect(hills.contains(#"<meta property="og:title" content="Hills">"#))
        #expect(hills.contains(#"<meta property="og:image" content="https://photos.example.org/images/h1-960.webp">"#))
        #expect(hills.contains(#"<meta property="og:image:alt" content="Ridge">"#))
        // Without base_url, no card (its addresses must be absolute).
        #expect(!(try text(try await render(items), "index.html")).contains("og:image"))
    }

    @Test func theSquareGridIsAnOption() async throws {
        let files = try await render([Self.item(0)], grid: .square)
        let index = try text(files, "index.html")
        #expect(index.contains(#"<ul id="photos" class="gallery square">"#))
        #expect(index.contains(#"sizes="(min-width: 1600px) 20vw, (min-width: 1100px) 25vw"#))
        #expect(
            try text(try await render([Self.item(0)]), "index.html").contains(
                #"<ul id="photos" class="gallery justified">"#))
    }

    @Test func tileSizesFollowTheRowsAndAPanoramaTakesTheWidth() {
        #expect(
            TileLayout.sizes(aspect: 1.5, grid: .justified)
                == "(min-width: 1600px) 585px, (min-width: 700px) 429px, 215px")
        // 4:1 is wider than the smallest viewport of a step (a 390-pixel phone, a 700-pixel
        // window): the whole width there.
        #expect(
            TileLayout.sizes(aspect: 4, grid: .justified)
                == "(min-width: 1600px) 1560px, (min-width: 700px) 100vw, 100vw")
        #expect(TileLayout.aspectText(width: 1200, height: 800) == "1.5")
        #expect(TileLayout.aspectText(width: 800, height: 1200) == "0.6667")
        #expect(TileLayout.aspectText(width: 4000, height: 1000) == "4")
        #expect(TileLayout.aspectText(width: 1, height: 20_000) == "0.0001")
        #expect(TileLayout.aspectText(width: 1, height: 40_000) == "0")
        // As printf would write it, for every shape from 1x1 to 400x400 (the pages must not
        // change with the way the number is written).
        for width in stride(from: 1, through: 400, by: 3) {
            for height in 1...400 {
                let value = (Double(width) / Double(height) * 10_000).rounded() / 10_000
                var expected = String(format: "%.4f", value)
                while expected.hasSuffix("0") { expected.removeLast() }
                if expected.hasSuffix(".") { expected.removeLast() }
                #expect(TileLayout.aspectText(width: width, height: height) == expected, "\(width)x\(height)")
            }
        }
    }

    @Test func theLargestTileOfAFirstScreenBelowTheFirstRowIsAskedForFirst() {
        // Tiles of one shape: each first screen's largest is in its first row.
        #expect(TileLayout.leads(aspects: Array(repeating: 1.5, count: 60), after: 4).isEmpty)
        // A panorama (3.5:1) as the 10th tile: at 2560 wide, in the second row, it is the largest
        // thing on the first screen; lower down only part of it would be in the window.
        var aspects = Array(repeating: 1.6, count: 60)
        aspects[9] = 3.5
        // On a phone the panorama takes a row of its own and leaves the tile before it alone in
        // its row, grown to the width: that one is the phone's largest.
        #expect(TileLayout.leads(aspects: aspects, after: 4) == [8, 9])
        aspects.swapAt(9, 14)
        #expect(TileLayout.leads(aspects: aspects, after: 4).isEmpty, "its row only begins above the fold")
        // Past the first screen of every common window: not asked for first.
        var late = Array(repeating: 1.6, count: 120)
        late[100] = 3.5
        #expect(!TileLayout.leads(aspects: late, after: 4).contains(100))
        #expect(TileLayout.leads(aspects: [], after: 4).isEmpty)
        #expect(TileLayout.leads(aspects: [3.5], after: 4).isEmpty, "the eager first row holds it")
    }

    /// All theme script together at most 12 kB gzipped (issue 29's budget), measured with gzip.
    @Test func theThemeScriptStaysSmall() async throws {
        let assets = SiteRendererTests.themeDirectory.appendingPathComponent("assets")
        let scripts = try FileManager.default.contentsOfDirectory(atPath: assets.path).filter { $0.hasSuffix(".js") }
        #expect(scripts.sorted() == ["start.js", "viewer.js"], "the theme's only scripts")
        var total = 0
        for script in scripts {
            let run = try await CommandRun.running(
                URL(fileURLWithPath: "/bin/sh"),
                ["-c", "gzip -9 -c \"$1\" | wc -c", "sh", assets.appendingPathComponent(script).path])
            #expect(run.status == 0, "\(run.standardError)")
            total += Int(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .max / 2
        }
        #expect(total > 1_000 && total <= 12 * 1024, "\(total) bytes gzipped")
    }
}
