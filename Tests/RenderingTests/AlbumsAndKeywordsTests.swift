import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Rendering

/// Nested albums (breadcrumbs, covers, counts, an album's own text and order) and keyword pages.
@Suite struct AlbumsAndKeywordsTests {
    let site = SiteRendererTests()

    func item(_ index: Int, path: [String], keywords: [String] = [], taken: String? = nil) -> GalleryItem {
        var item = SiteRendererTests.item(index, title: "P\(index)")
        item.photo.albumPath = path
        item.photo.id = (path + ["p\(index).jpg"]).joined(separator: "/")
        item.photo.metadata = PhotoMetadata(keywords: keywords, taken: taken.flatMap { CaptureTime.parse($0) })
        return item
    }

    /// Titles of the album tiles on a page, in order, with their counts.
    func tiles(_ html: String) -> [String] {
        guard let list = html.components(separatedBy: #"class="gallery square album-index""#).dropFirst().first
        else { return [] }
        let body = list.components(separatedBy: "</ul>")[0]
        return body.components(separatedBy: "<figcaption>").dropFirst().map { caption in
            caption.components(separatedBy: "</figcaption>")[0]
                .replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        }
    }

    /// The photo page of the item at `index` (its slug: its title and a hash of its id).
    func photoPage(_ files: [RenderedFile], _ index: Int) throws -> String {
        let file = try #require(
            files.first {
                $0.path.hasPrefix("photos/p\(index)-") || $0.path == "photos/p\(index).html"
            })
        return String(decoding: file.contents, as: UTF8.self)
    }

    func breadcrumbs(_ html: String) -> [String] {
        guard let nav = html.components(separatedBy: #"<nav class="breadcrumbs""#).dropFirst().first else { return [] }
        return nav.components(separatedBy: "</nav>")[0].components(separatedBy: "<li>").dropFirst().map {
            $0.replacingOccurrences(of: "<[^>]*>", with: "", options: .regularExpression)
        }
    }

    @Test func foldersInFoldersAreAlbumsInAlbums() async throws {
        let items = [
            item(0, path: []), item(1, path: ["2019"]), item(2, path: ["2019", "Iceland"]),
            item(3, path: ["2019", "Iceland"]), item(4, path: ["2019", "Norway", "Fjords"]), item(5, path: ["Home"]),
        ]
        let files = try await site.renderer().render(Gallery(title: "G", introHTML: "", baseURL: nil, items: items))
        let pages = Set(files.map(\.path))
        // `2019 / Norway` has no photo of its own, and still a page: it holds `Fjords`.
        for path in [
            "album-2019.html", "album-2019-iceland.html", "album-2019-norway.html", "album-2019-norway-fjords.html",
            "album-home.html",
        ] {
            #expect(pages.contains(path), "\(path)")
        }
        let index = try site.page(files, "index.html")
        // The header lists the albums at the top; each album's first page counts its photos and
        // those of the albums in it.
        #expect(index.contains(#"<a href="album-2019.html">2019</a></li>"#))
        #expect(index.contains(#"<a href="album-home.html">Home</a></li>"#))
        #expect(try site.page(files, "album-2019.html").contains("<p>4 photos · "))
        #expect(!index.contains(#"<a href="album-2019-iceland.html">"#))
        #expect(index.components(separatedBy: #"class="photo w"#).count - 1 == 6, "all photos on the index")

        let year = try site.page(files, "album-2019.html")
        #expect(tiles(year) == ["Iceland 2", "Norway 1"])
        #expect(year.contains(#"<img src="images/h2-480.webp""#), "Iceland's cover is its first photo")
        #expect(year.contains(#"<img src="images/h4-480.webp""#), "Norway's is the first of the album in it")
        #expect(year.contains(#"<h2 class="album-title">2019</h2>"#))
        #expect(year.contains(#"<a href="album-2019.html" aria-current="page">2019</a>"#))
        #expect(year.contains(#"<footer class="site-footer">"#) && year.contains("<p>4 photos"))
        let fjords = try site.page(files, "album-2019-norway-fjords.html")
        #expect(breadcrumbs(fjords) == ["All photos", "2019", "Norway"])
        #expect(fjords.contains(#"<li><a href="album-2019-norway.html">Norway</a></li>"#))
        #expect(fjords.contains(#"<h2 class="album-title">Fjords</h2>"#))
        #expect(fjords.contains(#"<a href="album-2019.html" aria-current="page">2019</a>"#), "its top album is marked")
        #expect(tiles(fjords).isEmpty)

        let photo = try photoPage(files, 4)
        #expect(breadcrumbs(photo) == ["2019", "Norway", "Fjords"])
        #expect(photo.contains(#"<a href="../album-2019-norway-fjords.html">Fjords</a>"#))
        for path in ["album-2019.html", "album-2019-norway-fjords.html"] {
            try HTMLCheck.assertWellFormed(try site.page(files, path))
        }
        try HTMLCheck.assertWellFormed(photo)
    }

    @Test func anAlbumsOwnTextCoverAndOrderWin() async throws {
        let items = [
            item(0, path: ["Trip"], taken: "2024-05-03"), item(1, path: ["Trip"], taken: "2024-05-01"),
            item(2, path: ["Trip", "Day 2"], taken: "2024-05-02"), item(3, path: ["Other"]),
        ]
        let details: [[String]: AlbumDetails] = [
            ["Trip"]: AlbumDetails(
                title: "A trip <north>", descriptionHTML: "<p>Three <em>days</em>.</p>", cover: "Trip/Day 2/p2.jpg",
                order: .oldest),
            ["Other"]: AlbumDetails(cover: "Trip/p0.jpg"),
        ]
        let files = try await site.renderer(pageSize: 1).render(
            Gallery(title: "G", introHTML: "", baseURL: nil, items: items, albums: details))
        let trip = try site.page(files, "album-trip.html")
        #expect(trip.contains("<h2 class=\"album-title\">A trip &lt;north&gt;</h2>"))
        #expect(trip.contains("<title>A trip &lt;north&gt; · G</title>"))
        #expect(trip.contains(#"<div class="album-description">"# + "\n<p>Three <em>days</em>.</p>"))
        // Its own order: oldest first, so P1 (1 May) on page 1 and P0 (3 May) on page 2.
        #expect(trip.contains(#"id="p1-"#) && !trip.contains(#"id="p0-"#))
        let second = try site.page(files, "album-trip-2.html")
        #expect(second.contains(#"id="p0-"#))
        #expect(!second.contains("album-description") && tiles(second).isEmpty, "its text and albums open page 1 only")
        // The site's order stays the feed's.
        #expect(try site.page(files, "index.html").contains(#"id="p0-"#))
        // A cover named in the album's folder or below it is taken; one from elsewhere is not.
        let index = try site.page(files, "index.html")
        #expect(index.contains(#"<a href="album-trip.html">A trip &lt;north&gt;</a>"#))
        let covers = PagePlan(
            gallery: Gallery(title: "G", introHTML: "", baseURL: nil, items: items, albums: details), pageSize: 60
        ).albums.map { $0.cover?.photo.index }
        #expect(covers == [2, 2, 3], "Trip: the named Day 2 photo; Day 2: its first; Other: not Trip's photo")
        // One photo named by an album and by the album it is in is both covers, every build.
        var both = details
        both[["Trip", "Day 2"]] = AlbumDetails(cover: "Trip/Day 2/p2.jpg")
        both[["Trip"]]?.cover = "Trip/Day 2/p2.jpg"
        for _ in 0..<5 {
            let plan = PagePlan(
                gallery: Gallery(title: "G", introHTML: "", baseURL: nil, items: items, albums: both), pageSize: 60)
            #expect(plan.albums.map { $0.cover?.photo.index } == [2, 2, 3])
        }
        // Without a named cover, the album's first photo in its own order, one with an image first.
        var failedFirst = items
        failedFirst[1] = SiteRendererTests.item(1, title: "P1", failed: true)
        failedFirst[1].photo.albumPath = ["Trip"]
        failedFirst[1].photo.metadata = PhotoMetadata(taken: CaptureTime.parse("2024-05-01"))
        let unnamed = PagePlan(
            gallery: Gallery(
                title: "G", introHTML: "", baseURL: nil, items: failedFirst,
                albums: [["Trip"]: AlbumDetails(order: .oldest)]),
            pageSize: 60)
        #expect(unnamed.albums[0].items.map(\.photo.index) == [1, 0], "oldest first: P1 (1 May), P0 (3 May)")
        #expect(unnamed.albums[0].cover?.photo.index == 0, "P1 has no image")
    }

    @Test func keywordsGetPagesListedOnTheKeywordsPage() async throws {
        let items = [
            item(0, path: [], keywords: ["Sea", "boat"]), item(1, path: [], keywords: ["sea", "Sea"]),
            item(2, path: [], keywords: ["Café <au> lait"]), item(3, path: []),
        ]
        let gallery = Gallery(title: "G", introHTML: "", baseURL: "https://example.org/g/", items: items)
        let files = try await site.renderer().render(gallery)
        let sea = try site.page(files, "keyword-sea.html")
        // Told apart without regard to case, spelt as first seen; a photo counted once.
        #expect(sea.contains("<h2 class=\"album-title\">Photos with the keyword “Sea”</h2>"))
        #expect(sea.components(separatedBy: #"class="photo w"#).count - 1 == 2)
        #expect(breadcrumbs(sea) == ["Keywords"])
        #expect(files.contains { $0.path == "keyword-boat.html" })
        #expect(files.contains { $0.path == "keyword-cafe-au-lait.html" })
        let keywords = try site.page(files, "keywords.html")
        #expect(
            keywords.contains(#"<li><a href="keyword-cafe-au-lait.html" rel="tag">Café &lt;au&gt; lait</a>"#)
                && keywords.contains(#"<a href="keyword-sea.html" rel="tag">Sea</a> <span class="count">2</span>"#))
        // By title: boat, Café, Sea.
        #expect(
            keywords.range(of: "keyword-boat")!.lowerBound < keywords.range(of: "keyword-cafe")!.lowerBound
                && keywords.range(of: "keyword-cafe")!.lowerBound < keywords.range(of: "keyword-sea")!.lowerBound)
        try HTMLCheck.assertWellFormed(keywords)
        try HTMLCheck.assertWellFormed(sea)
        #expect(try site.page(files, "index.html").contains(#"<a href="keywords.html">Keywords</a>"#))
        // A photo page links each of its keywords to its page.
        let photo = try photoPage(files, 1)
        #expect(photo.contains(#"<li><a href="../keyword-sea.html" rel="tag">sea</a></li>"#))
        let sitemap = try site.page(files, "sitemap.xml")
        #expect(sitemap.contains("https://example.org/g/keyword-sea.html"))
        #expect(sitemap.contains("https://example.org/g/keywords.html"))

        // Without keyword pages, keywords are plain text and no page is written.
        let plain = try await SiteRenderer(
            configuration: .init(themeDirectory: SiteRendererTests.themeDirectory, keywordPages: false)
        ).render(gallery)
        #expect(!plain.contains { $0.path.hasPrefix("keyword") })
        let plainPhoto = try photoPage(plain, 1)
        #expect(plainPhoto.contains("<li>sea</li>") && !plainPhoto.contains("keywords.html"))
    }

    @Test func albumsByTheYearTakenNewestFirstUndatedLast() async throws {
        let items = [
            item(0, path: ["Trip"], taken: "2019-05-03"), item(1, path: [], taken: "2024-01-01T10:00:00+01:00"),
            item(2, path: ["Trip"]), item(3, path: [], taken: "2019-12-31"),
        ]
        let renderer = try await SiteRenderer(
            configuration: .init(themeDirectory: SiteRendererTests.themeDirectory, albums: .year))
        let files = try await renderer.render(Gallery(title: "G", introHTML: "", baseURL: nil, items: items))
        let index = try site.page(files, "index.html")
        let order = ["album-2024.html", "album-2019.html", "album-undated.html"].map {
            index.range(of: #"<a href="\#($0)">"#)?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil } && order.compactMap { $0 } == order.compactMap { $0 }.sorted())
        #expect(index.contains(#"<a href="album-2019.html">2019</a></li>"#))
        #expect(try site.page(files, "album-2019.html").contains("<p>2 photos · "))
        #expect(!files.contains { $0.path == "album-trip.html" }, "the feed's albums give way")
        let undated = try site.page(files, "album-undated.html")
        #expect(undated.contains(#"<h2 class="album-title">Undated</h2>"#) && undated.contains(#"id="p2"#))
        #expect(try photoPage(files, 3).contains(#"<a href="../album-2019.html">2019</a>"#))
    }

    @Test func aFeedsAlbumNamesAnAlbumInsideAnother() {
        let photo = Photo(
            index: 0, id: "1", title: "t", source: URL(string: "https://example.org/1.jpg")!,
            albumPath: Photo.albumPath(of: "Garden / Flowers /  "))
        #expect(photo.albumPath == ["Garden", "Flowers", Photo.untitledAlbum])
        #expect(photo.album == "Garden / Flowers / \(Photo.untitledAlbum)")
        // A slash without the spaces is part of a name; an album set by name is one album.
        #expect(Photo.albumPath(of: "AC/DC") == ["AC/DC"])
        var named = photo
        named.album = "Live / Dead"
        #expect(named.albumPath == ["Live / Dead"])
    }

    /// A keyword in a theme written when keywords were plain text (`{{.}}`) still reads as text.
    @Test func aKeywordReadsAsItsTitle() {
        #expect("\(PhotoPageViewModel.Keyword(title: "fjord", href: "../keyword-fjord.html"))" == "fjord")
    }

    @Test func theSourcesCoverWhatAlbumsSay() async throws {
        let gallery = Gallery(
            title: "G", introHTML: "", baseURL: nil, items: [item(0, path: ["A"]), item(1, path: ["B"])])
        let renderer = try await site.renderer()
        let base = await renderer.sourcesFingerprint(of: gallery)
        var prints = [base]
        for details in [
            AlbumDetails(title: "T"), AlbumDetails(descriptionHTML: "<p>d</p>"), AlbumDetails(cover: "A/p0.jpg"),
            AlbumDetails(order: .newest),
        ] {
            var changed = gallery
            changed.albums[["A"]] = details
            prints.append(await renderer.sourcesFingerprint(of: changed))
        }
        var moved = gallery
        moved.albums[["B"]] = AlbumDetails(title: "T")
        prints.append(await renderer.sourcesFingerprint(of: moved))
        #expect(Set(prints).count == prints.count)
    }
}
