import Foundation
import GalleryCore

/// Splits the gallery into pages (all photos, then each album, then each keyword) and builds each
/// page's context.
struct PagePlan: Sendable {
    /// An album: a folder of a folder feed (albums inside it for its subfolders), or a feed's album.
    struct Album {
        /// Its folders, outermost first (`["2019", "Iceland"]`); one name for a feed's album.
        var path: [String]
        var title: String
        var slug: String
        /// Its own photos, in its order; not those of the albums inside it.
        var items: [GalleryItem]
        /// The album it is in.
        var parent: Int?
        /// The albums inside it, in order of first appearance.
        var children: [Int] = []
        /// Its photos and those of every album inside it.
        var count = 0
        /// The photo that stands for it: the one its `index.md` names, else its first photo,
        /// else the cover of its first album.
        var cover: GalleryItem?
        /// Its `index.md` text, HTML.
        var descriptionHTML: String?

        var href: String { "album-\(slug).html" }
    }

    /// The photos that carry a keyword, on a page of their own.
    struct Keyword {
        /// Lower-cased: how photos' keywords are matched to it.
        var key: String
        var title: String
        var slug: String
        var items: [GalleryItem]

        var href: String { "keyword-\(slug).html" }
    }

    /// Whose photos a grid page shows.
    enum Kind: Equatable {
        case all
        case album(Int)
        case keyword(Int)
    }

    struct Page {
        var path: String
        var number: Int
        var items: ArraySlice<GalleryItem>
        var kind: Kind
        var siblings: [String]
    }

    /// Up to this many albums are listed in every page's header; more get an albums page of
    /// their own (a header of hundreds of links helps nobody, and costs a render per page).
    static let inlineAlbumLimit = 12
    static let albumsPagePath = "albums.html"
    static let keywordsPagePath = "keywords.html"

    let gallery: Gallery
    /// Every album, each after the album it is in.
    let albums: [Album]
    /// The albums not inside another, in order.
    let topAlbums: [Int]
    /// By title; empty without keyword pages.
    let keywords: [Keyword]
    let pages: [Page]
    let pageSize: Int
    var hasAlbumsPage: Bool { topAlbums.count > Self.inlineAlbumLimit }
    var hasKeywordsPage: Bool { !keywords.isEmpty }
    /// Text values go to the templates through ``Swift/String/escapableInTemplates``.
    private var siteTitle: String { gallery.title.escapableInTemplates }

    /// Where albums come from (`albums:`).
    let albumSource: AlbumSource
    /// The language the pages speak, and the site's values made of it once.
    let language: SiteLanguage
    let site: PageViewModel.Site

    init(
        gallery: Gallery, pageSize: Int, keywordPages: Bool = false, albums albumSource: AlbumSource = .feed,
        language: SiteLanguage = .english
    ) {
        self.gallery = gallery
        self.pageSize = pageSize
        self.albumSource = albumSource
        self.language = language
        site = PageViewModel.Site(title: gallery.title.escapableInTemplates, language: language)
        // One album is no choice: album pages only when the feed has two or more.
        let found =
            albumSource == .year
            ? Self.yearAlbums(of: gallery.items, pageSize: pageSize, undated: language.text("undated"))
            : Self.albums(of: gallery.items, details: gallery.albums, pageSize: pageSize)
        let albums = found.count > 1 ? found : []
        self.albums = albums
        topAlbums = albums.indices.filter { albums[$0].parent == nil }
        keywords = keywordPages ? Self.keywords(of: gallery.items, pageSize: pageSize) : []
        var pages = Self.pages(of: gallery.items, prefix: "index", kind: .all, pageSize: pageSize)
        for (number, album) in albums.enumerated() {
            pages += Self.pages(
                of: album.items, prefix: "album-\(album.slug)", kind: .album(number), pageSize: pageSize)
        }
        for (number, keyword) in keywords.enumerated() {
            pages += Self.pages(
                of: keyword.items, prefix: "keyword-\(keyword.slug)", kind: .keyword(number), pageSize: pageSize)
        }
        self.pages = pages
    }

    /// The pages `count` photos take, `pageSize` a page: at least one (an empty album has a page).
    static func pageCount(of count: Int, pageSize: Int) -> Int {
        max(1, (count + max(1, pageSize) - 1) / max(1, pageSize))
    }

    private static func pages(of items: [GalleryItem], prefix: String, kind: Kind, pageSize: Int) -> [Page] {
        let count = pageCount(of: items.count, pageSize: pageSize)
        let paths = (1...count).map { number in
            if prefix == "index" { return number == 1 ? "index.html" : "page-\(number).html" }
            return number == 1 ? "\(prefix).html" : "\(prefix)-\(number).html"
        }
        return (1...count).map { number in
            let start = (number - 1) * pageSize
            let end = min(items.count, start + pageSize)
            return Page(
                path: paths[number - 1], number: number, items: items[start..<end], kind: kind, siblings: paths)
        }
    }

    /// Albums in order of first appearance, each album an album is in before it (a photo in
    /// `2019 / Iceland` makes `2019` too, even with no photo of its own); a feed's numeric album
    /// id reads "Album N" (``FeedDocument/albums`` says so).
    private static func albums(
        of items: [GalleryItem], details: [[String]: AlbumDetails], pageSize: Int
    ) -> [Album] {
        var albums: [Album] = []
        var byPath: [[String]: Int] = [:]
        var members: [[GalleryItem]] = []
        for item in items {
            let path = item.photo.albumPath
            guard !path.isEmpty else { continue }
            var parent: Int?
            for depth in 1...path.count {
                let prefix = Array(path.prefix(depth))
                if let known = byPath[prefix] {
                    parent = known
                    continue
                }
                let number = albums.count
                let title = details[prefix]?.title ?? prefix[prefix.count - 1]
                albums.append(
                    Album(
                        path: prefix, title: title.escapableInTemplates, slug: "", items: [], parent: parent,
                        descriptionHTML: details[prefix]?.descriptionHTML))
                members.append([])
                if let parent { albums[parent].children.append(number) }
                byPath[prefix] = number
                parent = number
            }
            if let parent { members[parent].append(item) }
        }
        let slugs = uniqueSlugs(
            of: albums.map { $0.path.joined(separator: " / ") },
            pageCounts: members.map { pageCount(of: $0.count, pageSize: pageSize) })
        // A named cover, found among the photos of the album and the albums in it; one photo may
        // be named by more than one album (an album's and its parent's index.md).
        var named: [String: [[String]]] = [:]
        for (path, details) in details {
            if let cover = details.cover { named[cover, default: []].append(path) }
        }
        var covers: [Int: GalleryItem] = [:]
        if !named.isEmpty {
            for item in items {
                for path in named[item.photo.id] ?? [] {
                    // A photo behind a content warning is no album's cover: it would show without it.
                    guard let number = byPath[path], item.photo.albumPath.starts(with: path),
                        item.photo.contentWarning == nil
                    else { continue }
                    covers[number] = item
                }
            }
        }
        // Inner albums come after theirs: counted and covered from the last one back. Without a
        // named cover, an album's first photo (in its own order) that may stand for it (an image,
        // no content warning: ``GalleryItem/canStandForOthers``), else its first album's cover,
        // else its first photo.
        for number in albums.indices.reversed() {
            let order = details[albums[number].path]?.order
            albums[number].slug = slugs[number]
            albums[number].items = order.map { GalleryItem.ordered(members[number], by: $0) } ?? members[number]
            albums[number].count =
                members[number].count + albums[number].children.reduce(0) { $0 + albums[$1].count }
            let own = albums[number].items
            albums[number].cover =
                covers[number] ?? own.first(where: \.canStandForOthers)
                ?? albums[number].children.lazy.compactMap { albums[$0].cover }.first ?? own.first
        }
        return albums
    }

    /// The album an item is in: its feed's, or with `albums: year` the year it was taken.
    func albumPath(of item: GalleryItem) -> [String] {
        switch albumSource {
        case .feed: item.photo.albumPath
        case .year: [Self.year(of: item)]
        }
    }

    /// The name of the album of the photos that say no time taken, with `albums: year`.
    static let undatedAlbum = "Undated"

    static func year(of item: GalleryItem) -> String {
        item.said.taken.map { String($0.local.prefix(4)) } ?? undatedAlbum
    }

    /// `albums: year`: an album per year taken, newest first, in the site's order within each;
    /// the photos that say no time in an album of their own, last.
    private static func yearAlbums(of items: [GalleryItem], pageSize: Int, undated: String) -> [Album] {
        var members: [String: [GalleryItem]] = [:]
        for item in items { members[year(of: item), default: []].append(item) }
        let years = members.keys.sorted { left, right in
            if left == undatedAlbum || right == undatedAlbum { return right == undatedAlbum && left != right }
            return left > right
        }
        let slugs = uniqueSlugs(
            of: years, pageCounts: years.map { pageCount(of: members[$0]?.count ?? 0, pageSize: pageSize) })
        return years.indices.map { number in
            let items = members[years[number]] ?? []
            return Album(
                path: [years[number]],
                title: years[number] == undatedAlbum ? undated.escapableInTemplates : years[number],
                slug: slugs[number], items: items, count: items.count,
                cover: items.first(where: \.canStandForOthers) ?? items.first)
        }
    }

    /// Every keyword that a photo says (``GalleryItem/said``), spelt as it first appears, told
    /// apart without regard to case, sorted by title; each with its photos in gallery order.
    private static func keywords(of items: [GalleryItem], pageSize: Int) -> [Keyword] {
        var titles: [String: String] = [:]
        var members: [String: [GalleryItem]] = [:]
        for item in items {
            var seen: Set<String> = []
            for keyword in item.said.keywords {
                let key = keyword.lowercased()
                guard seen.insert(key).inserted else { continue }
                if titles[key] == nil { titles[key] = keyword }
                members[key, default: []].append(item)
            }
        }
        let keys = titles.keys.sorted { ($0, titles[$0] ?? "") < ($1, titles[$1] ?? "") }
        let slugs = uniqueSlugs(
            of: keys.map { titles[$0] ?? $0 },
            pageCounts: keys.map { pageCount(of: members[$0]?.count ?? 0, pageSize: pageSize) },
            empty: "keyword")
        return keys.indices.map { number in
            Keyword(
                key: keys[number], title: (titles[keys[number]] ?? "").escapableInTemplates, slug: slugs[number],
                items: members[keys[number]] ?? [])
        }
    }

    /// The slug of each name (``albumSlug(of:)``); slugs never give two pages one name: "Trip 2"
    /// and the second page of "Trip" would both be `…-trip-2.html`, so the name that comes later
    /// takes the next free slug.
    static func uniqueSlugs(of names: [String], pageCounts: [Int], empty: String = "album") -> [String] {
        // The names of the pages taken so far, without the prefix and `.html`.
        var usedNames: Set<String> = []
        return zip(names, pageCounts).map { name, pageCount in
            func names(_ slug: String) -> [String] { [slug] + (1..<pageCount).map { "\(slug)-\($0 + 1)" } }
            let base = albumSlug(of: name, empty: empty)
            var slug = base
            var suffix = 2
            while names(slug).contains(where: usedNames.contains) {
                slug = "\(base)-\(suffix)"
                suffix += 1
            }
            usedNames.formUnion(names(slug))
            return slug
        }
    }

    /// The longest album slug kept whole: a page name (`album-<slug>-<page>.html`) and the
    /// temporary name it is staged under stay far below the 255 bytes a file name may have.
    static let albumSlugLength = 64

    /// An album's slug: ``slugify(_:empty:)`` of its name, and when that is longer than
    /// ``albumSlugLength``, its start (cut at a dash) and 8 hex digits of a hash of the whole
    /// name, so that two long names that start alike stay apart.
    static func albumSlug(of name: String, empty: String = "album") -> String {
        let slug = slugify(name, empty: empty)
        guard slug.utf8.count > albumSlugLength else { return slug }
        var start = slug.prefix(albumSlugLength)
        if let dash = start.lastIndex(of: "-"), dash > start.startIndex { start = start[..<dash] }
        return "\(start)-\(PhotoSlugs.hexHash(name))"
    }

    /// Lower-case ASCII letters and digits joined by dashes; never empty. Other scripts and
    /// accented letters are spelled in ASCII first (`accentué` -> `accentue`, `Straße` ->
    /// `strasse`, `Ελλάδα` -> `ellada`), so that a page name stays readable.
    static func slugify(_ text: String, empty: String = "album") -> String {
        let ascii =
            text.unicodeScalars.allSatisfy(\.isASCII)
            ? text : text.applyingTransform(StringTransform("Any-Latin; Latin-ASCII"), reverse: false) ?? text
        // ASCII letters and digits by value: CharacterSet's lookup cost most of a second for the
        // slugs of 100,000 photos.
        var slug: [UInt8] = []
        for scalar in ascii.lowercased().unicodeScalars {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: slug.append(UInt8(scalar.value))
            default: if let last = slug.last, last != UInt8(ascii: "-") { slug.append(UInt8(ascii: "-")) }
            }
        }
        while slug.last == UInt8(ascii: "-") { slug.removeLast() }
        return slug.isEmpty ? empty : String(decoding: slug, as: UTF8.self)
    }

    /// The albums page: every album not inside another, with its cover.
    func albumsPageModel(grid: GridStyle) -> AlbumsPageViewModel {
        AlbumsPageViewModel(
            site: site,
            title: "\(language.text("albums").escapableInTemplates) · \(siteTitle)",
            albums: covers(of: topAlbums, grid: grid)
        )
    }

    /// The tiles of `numbers`' albums, each with its cover; the first four load eagerly.
    func covers(of numbers: [Int], grid: GridStyle) -> [AlbumsPageViewModel.Cover] {
        numbers.enumerated().compactMap { offset, number in
            let album = albums[number]
            guard var cover = album.cover else { return nil }
            // An album of photos behind warnings alone shows none of them as its cover.
            if cover.photo.contentWarning != nil {
                cover.image = nil
                cover.failure = "behind a content warning"
            }
            return AlbumsPageViewModel.Cover(
                photo: PhotoViewModel(for: cover, slug: nil, eager: offset < 4, grid: grid, language: language),
                albumTitle: album.title, albumHref: album.href, photoCount: language.number(album.count))
        }
    }

    /// The keywords page: every keyword with the number of its photos.
    func keywordsPageModel() -> KeywordsPageViewModel {
        KeywordsPageViewModel(
            site: site,
            title: "\(language.text("keywords").escapableInTemplates) · \(siteTitle)",
            keywords: keywords.map {
                PageViewModel.AlbumLink(
                    title: $0.title, href: $0.href, photoCount: language.number($0.items.count), current: false)
            })
    }

    /// The page numbers a page links to: the first, the last and two either side of the current
    /// one, with nil for each run of pages left out (a run of one is shown instead). A gallery of
    /// 10,000 photos has 167 pages; a link to each on every page is 28,000 links nobody reads.
    static func pageWindow(current: Int, count: Int, radius: Int = 2) -> [Int?] {
        guard count > 0 else { return [] }
        let shown = Set([1, count]).union(max(1, current - radius)...min(count, max(1, current + radius)))
        var window: [Int?] = []
        var previous = 0
        for number in shown.sorted() {
            if number - previous == 2 {
                window.append(previous + 1)
            } else if number - previous > 2 {
                window.append(nil)
            }
            window.append(number)
            previous = number
        }
        return window
    }

    /// The page's values; `photos` are the view models of its tiles, in order.
    func model(for page: Page, photos: [PhotoViewModel], grid: GridStyle) -> PageViewModel {
        let pageCount = page.siblings.count
        let links = Self.pageWindow(current: page.number, count: pageCount).map { number in
            guard let number else { return PageViewModel.Navigation.Link() }
            return PageViewModel.Navigation.Link(
                number: number, href: page.siblings[number - 1], current: number == page.number,
                text: language.number(number))
        }
        let navigation = PageViewModel.Navigation(
            number: page.number, count: pageCount, links: links,
            previous: page.number > 1 ? page.siblings[page.number - 2] : nil,
            next: page.number < pageCount ? page.siblings[page.number] : nil,
            label: language.text("page_number", ["number": language.number(page.number)]).escapableInTemplates)
        var album: Album?
        var keyword: Keyword?
        var top: Int?
        switch page.kind {
        case .all: break
        case .album(let number):
            album = albums[number]
            top = number
            while let parent = albums[top ?? number].parent { top = parent }
        case .keyword(let number): keyword = keywords[number]
        }
        let albumLinks = topAlbums.map { number in
            PageViewModel.AlbumLink(
                title: albums[number].title, href: albums[number].href, photoCount: nil, current: number == top)
        }
        // The way up, when the header does not show it all: the gallery (or the albums page),
        // then each album the album is in.
        var breadcrumbs: [PhotoPageViewModel.Link] = []
        if let album, album.parent != nil || hasAlbumsPage {
            breadcrumbs.append(
                hasAlbumsPage
                    ? PhotoPageViewModel.Link(href: Self.albumsPagePath, title: text("albums"))
                    : PhotoPageViewModel.Link(href: "index.html", title: text("all_photos")))
            breadcrumbs += trail(to: album.parent)
        } else if keyword != nil {
            breadcrumbs.append(PhotoPageViewModel.Link(href: Self.keywordsPagePath, title: text("keywords")))
        }
        let heading =
            album?.title ?? keyword.map { text("keyword_heading", ["keyword": $0.title]) }
        let canonical = gallery.baseDirectory.map { ($0 + page.path).escapableInTemplates }
        let first = page.number == 1
        return PageViewModel(
            site: site,
            title: (album?.title ?? keyword?.title).map { "\($0) · \(siteTitle)" } ?? siteTitle,
            isIndex: page.kind == .all,
            photos: photos,
            // On the first page alone: a photo added changes one page, not every page of the list.
            photoCount: first
                ? language.text(
                    "photo_count", count: album?.count ?? keyword?.items.count ?? gallery.items.count
                ).escapableInTemplates : nil,
            page: navigation,
            // With an albums page, the header links to it instead of listing every album.
            albums: hasAlbumsPage ? [] : albumLinks,
            albumsPage: hasAlbumsPage
                ? PageViewModel.AlbumsPageLink(href: Self.albumsPagePath)
                : nil,
            keywordsPage: hasKeywordsPage
                ? PageViewModel.AlbumsPageLink(href: Self.keywordsPagePath)
                : nil,
            // The intro opens the gallery's first page only.
            intro: page.kind == .all && first && !gallery.introHTML.isEmpty ? gallery.introHTML : nil,
            albumTitle: heading,
            breadcrumbs: breadcrumbs,
            albumDescription: first ? album?.descriptionHTML : nil,
            albumDownload: first
                ? album.flatMap { gallery.albums[$0.path]?.download }.map {
                    PhotoPageViewModel.DownloadLink(
                        $0, label: language.text("download_album"), prefix: "", language: language)
                } : nil,
            subalbums: first ? covers(of: album?.children ?? [], grid: grid) : [],
            canonical: canonical,
            // Shared, a grid page shows its album's cover, else its first photo.
            card: {
                let shown = (album?.cover ?? page.items.first(where: \.canStandForOthers))
                    .flatMap { $0.photo.contentWarning == nil ? $0 : nil }
                return PhotoPageViewModel.Card(
                    path: page.path, item: shown, base: gallery.baseDirectory, alt: shown?.altText(in: language))
            }(),
            grid: grid,
            path: page.path
        )
    }

    /// The string `key` of the site's language, filled in, escapable.
    func text(_ key: String, _ values: [String: String] = [:]) -> String {
        language.text(key, values).escapableInTemplates
    }

    /// Links to album `number` and each album it is in, outermost first (none for nil);
    /// `prefix` leads from the page to the output folder.
    func trail(to number: Int?, prefix: String = "") -> [PhotoPageViewModel.Link] {
        var trail: [PhotoPageViewModel.Link] = []
        var next = number
        while let number = next {
            trail.append(PhotoPageViewModel.Link(href: prefix + albums[number].href, title: albums[number].title))
            next = albums[number].parent
        }
        return trail.reversed()
    }

    /// The index page (`index.html`, `page-N.html`) that shows the photo at `offset` in the feed.
    func gridPagePath(ofOffset offset: Int) -> String {
        let number = offset / pageSize + 1
        return number == 1 ? "index.html" : "page-\(number).html"
    }

    /// The photo pages, each built when asked for (``PhotoPages``).
    func photoPages(slugs: [Int: String], showsCameraDetails: Bool, location: LocationPrecision = .off) -> PhotoPages {
        PhotoPages(plan: self, slugs: slugs, showsCameraDetails: showsCameraDetails, location: location)
    }

    /// Every photo page's path and values, in gallery order; neighbours are the photos before and
    /// after it that have pages. A page's values are built when asked for, so that a gallery of
    /// 100,000 photos never holds them all.
    struct PhotoPages: Sendable {
        let plan: PagePlan
        let slugs: [Int: String]
        let showsCameraDetails: Bool
        let location: LocationPrecision
        /// The offsets in the gallery of the photos that have a page.
        let shown: [Int]
        /// Album numbers by path.
        let albumsByPath: [[String]: Int]
        /// Keyword pages by keyword, lower-cased.
        let keywordPages: [String: String]

        init(plan: PagePlan, slugs: [Int: String], showsCameraDetails: Bool, location: LocationPrecision) {
            self.plan = plan
            self.slugs = slugs
            self.showsCameraDetails = showsCameraDetails
            self.location = location
            shown = plan.gallery.items.indices.filter { offset in
                let item = plan.gallery.items[offset]
                return slugs[item.photo.index] != nil && item.image != nil
            }
            albumsByPath = Dictionary(
                plan.albums.indices.map { (plan.albums[$0].path, $0) }, uniquingKeysWith: { first, _ in first })
            keywordPages = Dictionary(
                plan.keywords.map { ($0.key, "../" + $0.href) }, uniquingKeysWith: { first, _ in first })
        }

        var count: Int { shown.count }

        /// The path of the page at `position`, without building the page.
        func path(at position: Int) -> String {
            PhotoSlugs.pagePath(of: slugs[plan.gallery.items[shown[position]].photo.index] ?? "")
        }

        /// The page of the photo at `position` among those with pages.
        func page(at position: Int) -> (path: String, model: PhotoPageViewModel) {
            let offset = shown[position]
            let item = plan.gallery.items[offset]
            let slug = slugs[item.photo.index] ?? ""
            let siteTitle = plan.site.title
            let language = plan.language
            let path = path(at: position)
            let image = item.image
            let largest = image.flatMap { image in
                image.renditions.filter { $0.format == PhotoViewModel.fallbackFormat(of: image) }
                    .max { $0.width < $1.width }
            }
            let width = largest?.width ?? image?.width ?? 0
            let height = largest?.height ?? image?.height ?? 0
            let photo = PhotoViewModel(
                for: item, slug: slug, eager: true, grid: .justified, prefix: "../",
                sizes: PhotoPageViewModel.sizes(width: width, height: height), language: language)
            let albumTrail = plan.trail(to: albumsByPath[plan.albumPath(of: item)], prefix: "../")
            // Behind a content warning, no card: a link shared would show the photo without it.
            let warned = item.photo.contentWarning != nil
            let card = warned ? nil : PhotoPageViewModel.Card(path: path, item: item, base: plan.gallery.baseDirectory)
            let camera = showsCameraDetails ? image?.camera.map { $0.parts.joined(separator: " · ") } : nil
            let heading = item.displayTitle(in: language)
            let model = PhotoPageViewModel(
                site: plan.site,
                title: "\(heading) · \(siteTitle)",
                heading: heading,
                photoTitle: item.displayTitle(in: language, behindWarning: true),
                said: PhotoPageViewModel.Said(
                    item, keywordPages: keywordPages, location: location, language: language, behindWarning: true),
                photo: photo,
                width: width, height: height,
                album: albumTrail.last,
                albumTrail: albumTrail,
                previous: neighbour(position - 1),
                next: neighbour(position + 1),
                grid: PhotoPageViewModel.Link(
                    href: "../\(plan.gridPagePath(ofOffset: offset))#\(slug)", title: plan.text("all_photos")),
                camera: camera?.isEmpty == false ? camera : nil,
                card: card,
                canonical: plan.gallery.baseDirectory.map { ($0 + path).escapableInTemplates },
                structuredData: warned
                    ? nil
                    : PhotoPageViewModel.ImageObject.json(
                        for: item,
                        contentUrl: largest.map { (plan.gallery.baseDirectory ?? "../") + $0.path },
                        width: width, height: height, location: location, language: language),
                download: item.download.map { download in
                    PhotoPageViewModel.DownloadLink(
                        download,
                        label: language.text(download.path.hasPrefix("images/") ? "download" : "download_original"),
                        prefix: "../", language: language)
                }
            )
            return (path, model)
        }

        private func neighbour(_ position: Int) -> PhotoPageViewModel.Link? {
            guard shown.indices.contains(position) else { return nil }
            let item = plan.gallery.items[shown[position]]
            return PhotoPageViewModel.Link(
                href: "\(slugs[item.photo.index] ?? "").html", title: item.displayTitle(in: plan.language))
        }
    }
}
