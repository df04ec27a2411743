import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Rendering

/// A photo behind a content warning (`feed.sensitive: behind_warning`): its tile and its page
/// show the warning and a blurred preview until the visitor asks, and nothing outside the warning
/// (a page's title, a neighbour's link, a card, the feeds, the sitemap, an album's cover, an
/// address) shows the photo or what it says.
@Suite struct ContentWarningTests {
    /// What a warning keeps back: the title, caption and alt text of the warned photos, and their
    /// images' paths.
    static let keptBack = [
        "Gore in the kitchen", "the whole sorry story", "A knife and blood", "images/h1-", "images/h2-",
    ]

    static func items() -> [GalleryItem] {
        var warned = SiteRendererTests.item(1, title: "Gore in the kitchen")
        warned.photo.albumPath = ["Trip", "Mixed"]
        warned.photo.metadata.description = "the whole sorry story"
        warned.photo.metadata.alt = "A knife and blood"
        warned.photo.contentWarning = "blood"
        var harbour = SiteRendererTests.item(0, title: "Harbour")
        harbour.photo.albumPath = ["Trip", "Mixed"]
        var wordless = SiteRendererTests.item(2, title: "Gore in the kitchen, again")
        wordless.photo.albumPath = ["Trip", "Alone"]
        wordless.photo.contentWarning = ""
        return [warned, harbour, wordless, SiteRendererTests.item(3, title: "Ridge", album: "Trip")]
    }

    func render(_ items: [GalleryItem] = items(), theme: URL = SiteRendererTests.themeDirectory) async throws
        -> [RenderedFile]
    {
        let renderer = try await SiteRenderer(configuration: .init(themeDirectory: theme, pageSize: 60))
        return try await renderer.render(
            Gallery(title: "Field notes", introHTML: "", baseURL: "https://example.org/g/", items: items))
    }

    func text(_ files: [RenderedFile], _ path: String) throws -> String {
        String(decoding: try #require(files.first { $0.path == path }, "\(path)").contents, as: UTF8.self)
    }

    /// The page with every warning's `<details>` taken out: what shows before anyone asks.
    static func outsideWarnings(_ html: String) throws -> String {
        let pattern = try NSRegularExpression(
            pattern: #"<details class="cw[^"]*"[^>]*>.*?</details>"#, options: .dotMatchesLineSeparators)
        return pattern.stringByReplacingMatches(
            in: html, range: NSRange(html.startIndex..., in: html), withTemplate: "")
    }

    @Test func aTileShowsTheWarningAndItsPreviewUntilAskedAndNothingElse() async throws {
        let files = try await render()
        let index = try text(files, "index.html")
        try HTMLCheck.assertWellFormed(index)
        #expect(index.components(separatedBy: #"<details class="cw">"#).count == 3, "two tiles behind a warning")
        #expect(index.contains(#"<span class="cw-text"><b>Content warning</b> blood</span>"#))
        #expect(index.contains(#"<span class="cw-text"><b>Content warning</b> Sensitive content</span>"#))
        #expect(
            index.contains(
                #"<span class="veil" style="background-color:#336699;background-image:url(data:image/webp;base64,UklGRg==)"></span>"#
            ), "the blurred preview")
        #expect(index.contains(#"<span class="cw-show">Show</span><span class="cw-hide">Hide</span></summary>"#))
        // Behind the warning: the photo with its own alt text, loaded only once shown, and not in
        // the viewer (which would show it without the warning).
        #expect(index.contains(#"alt="A knife and blood" loading="lazy" fetchpriority="low""#))
        #expect(index.contains(#"<a href="photos/photo-2.html"><img src="images/h1-480.webp""#))
        #expect(!index.contains(#"data-full="images/h1-"#) && !index.contains(#"data-full="images/h2-"#))
        #expect(index.contains(#"data-full="images/h0-960.webp""#), "other photos open in the viewer")
        let outside = try Self.outsideWarnings(index)
        for text in Self.keptBack { #expect(!outside.contains(text), "\(text)") }
        #expect(outside.contains("Harbour") && outside.contains("images/h0-"))
    }

    @Test func aPhotoPageShowsThePhotoOnlyBehindItsWarning() async throws {
        let files = try await render()
        // No title in the address: it is seen before anyone asks.
        #expect(!files.contains { $0.path.contains("gore") })
        let page = try text(files, "photos/photo-2.html")
        try HTMLCheck.assertWellFormed(page)
        #expect(page.contains(#"<details class="cw cw-page" style="--ar:1.3333">"#))
        #expect(page.contains("<h1>Gore in the kitchen</h1>"), "its own title, behind the warning")
        #expect(page.contains("<p>the whole sorry story</p>"))
        #expect(page.contains(#"alt="A knife and blood" loading="lazy" decoding="async""#))
        #expect(!page.contains(#"fetchpriority="high""#))
        let outside = try Self.outsideWarnings(page)
        for text in Self.keptBack { #expect(!outside.contains(text), "\(text)") }
        #expect(outside.contains("<title>Photo 2 · Field notes</title>"))
        #expect(outside.contains(#"<meta property="og:title" content="Photo 2">"#))
        #expect(!outside.contains("og:image") && !outside.contains("application/ld+json"), "no card, no JSON-LD")
        #expect(outside.contains(#"<link rel="canonical" href="https://example.org/g/photos/photo-2.html">"#))
        // Its neighbours name it as the page does.
        let neighbour = try text(files, "photos/harbour-1.html")
        #expect(neighbour.contains(#"href="photo-2.html"><span class="arrow" aria-hidden="true">←</span> Photo 2</a>"#))
        for text in Self.keptBack { #expect(!neighbour.contains(text), "\(text)") }
    }

    @Test func feedsSitemapCardsAndCoversLeaveTheWarnedPhotosOut() async throws {
        let files = try await render()
        for path in ["feed.xml", "feed.json"] {
            let feed = try text(files, path)
            for text in Self.keptBack { #expect(!feed.contains(text), "\(path): \(text)") }
            #expect(!feed.contains("photo-2.html") && !feed.contains("photo-3.html"), "\(path)")
            #expect(feed.contains("harbour-1.html"), "\(path)")
        }
        let sitemap = try text(files, "sitemap.xml")
        #expect(sitemap.contains("<url><loc>https://example.org/g/photos/photo-2.html</loc></url>"))
        #expect(!sitemap.contains("images/h1-") && !sitemap.contains("images/h2-"))
        // The grid's card is its first photo not behind a warning.
        let index = try text(files, "index.html")
        #expect(index.contains(#"<meta property="og:image" content="https://example.org/g/images/h0-960.webp">"#))
        // An album's cover is its first photo not behind a warning; an album of warned photos
        // alone shows none.
        for file in files where file.path.hasSuffix(".html") {
            let html = try Self.outsideWarnings(String(decoding: file.contents, as: UTF8.self))
            #expect(!html.contains("images/h1-") && !html.contains("images/h2-"), "\(file.path)")
        }
        let trip = try text(files, "album-trip.html")
        #expect(trip.contains(#"<a href="album-trip-mixed.html"><img src="images/h0-480.webp""#))
        #expect(trip.contains(#"<span>No cover</span>"#), "the album of one warned photo")
    }

    @Test func aThemeThatShowsNoWarningIsRefusedWhenAPhotoHasOne() async throws {
        let folder = try TemporaryDirectory()
        let theme = folder.url.appendingPathComponent("theme")
        try FileManager.default.createDirectory(at: theme, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: SiteRendererTests.themeDirectory.appendingPathComponent("page.mustache"),
            to: theme.appendingPathComponent("page.mustache"))
        try #"{{#image}}<li><a href="{{{page}}}"><img src="{{{src}}}" alt="{{alt}}"></a></li>{{/image}}"#.write(
            to: theme.appendingPathComponent("photo.mustache"), atomically: true, encoding: .utf8)
        await #expect {
            _ = try await render(theme: theme)
        } throws: { error in
            let message = (error as? RenderingError)?.message ?? ""
            return message.contains("photo.mustache show no content warning")
                && message.contains("2 photos are behind one (`feed.sensitive: behind_warning`)")
        }
        // Without a warned photo it builds as before.
        let files = try await render([SiteRendererTests.item(0, title: "Harbour")], theme: theme)
        #expect(try text(files, "index.html").contains("images/h0-480.webp"))
    }
}
