import Foundation
import GalleryCore

/// Splits the gallery into pages (all photos, then each album) and builds each page's context.
struct PagePlan: Sendable {
    struct Album {
        /// The feed's own value (`1`, `Coast`).
        var name: String
        var title: String
        var slug: String
        var items: [GalleryItem]
    }

    struct Page {
        var path: String
        var number: Int
        var items: ArraySlice<GalleryItem>
        var album: Album?
        var siblings: [String]
    }

    /// Up to this many albums are listed in every page's header; more get an albums page of
    /// their own (a header of hundreds of links helps nobody, and costs a render per page).
    static let inlineAlbumLimit = 12
    static let albumsPagePath = "albums.html"

    let gallery: Gallery
    let albums: [Album]
    let pages: [Page]
    let pageSize: Int
    var hasAlbumsPage: Bool { albums.count > Self.inlineAlbumLimit }
    /// Text values go to the templates through ``Swift/String/escapableInTemplates``.
    private var siteTitle: String { gallery.title.escapableInTemplates }

    init(gallery: Gallery, pageSize: Int) {
        self.gallery = gallery
        self.pageSize = pageSize
        // One album is no choice: album pages only when the feed has two or more.
        let albums = Self.albums(of: gallery.items, pageSize: pageSize)
        self.albums = albums.count > 1 ? albums : []
        var pages = Self.pages(of: gallery.items, prefix: "index", album: nil, pageSize: pageSize)
        for album in self.albums {
            pages += Self.pages(of: album.items, prefix: "album-\(album.slug)", album: album, pageSize: pageSize)
        }
        self.pages = pages
    }

    private static func pages(of items: [GalleryItem], prefix: String, album: Album?, pageSize: Int) -> [Page] {
        let count = max(1, (items.count + pageSize - 1) / pageSize)
        let paths = (1...count).map { number in
            if prefix == "index" { return number == 1 ? "index.html" : "page-\(number).html" }
            return number == 1 ? "\(prefix).html" : "\(prefix)-\(number).html"
        }
        return (1...count).map { number in
            let start = (number - 1) * pageSize
            let end = min(items.count, start + pageSize)
            return Page(
                path: paths[number - 1], number: number, items: items[start..<end], album: album, siblings: paths)
        }
    }

    /// Albums in order of first appearance; a numeric album id reads "Album N". Slugs never give
    /// two pages one name: an album "Trip 2" and the second page of an album "Trip" would both be
    /// `album-trip-2.html`, so the album that comes later takes the next free slug.
    private static func albums(of items: [GalleryItem], pageSize: Int) -> [Album] {
        var order: [String] = []
        var members: [String: [GalleryItem]] = [:]
        for item in items {
            guard let album = item.photo.album else { continue }
            if members[album] == nil { order.append(album) }
            members[album, default: []].append(item)
        }
        // The names of the pages taken so far, without `album-` and `.html`.
        var usedNames: Set<String> = []
        return order.map { name in
            let title = name.allSatisfy(\.isNumber) ? "Album \(name)" : name
            let pageCount = max(1, ((members[name]?.count ?? 0) + pageSize - 1) / max(1, pageSize))
            func names(_ slug: String) -> [String] { [slug] + (1..<pageCount).map { "\(slug)-\($0 + 1)" } }
            let base = albumSlug(of: name)
            var slug = base
            var suffix = 2
            while names(slug).contains(where: usedNames.contains) {
                slug = "\(base)-\(suffix)"
                suffix += 1
            }
            usedNames.formUnion(names(slug))
            return Album(name: name, title: title.escapableInTemplates, slug: slug, items: members[name] ?? [])
        }
    }

    /// The longest album slug kept whole: a page name (`album-<slug>-<page>.html`) and the
    /// temporary name it is staged under stay far below the 255 bytes a file name may have.
    static let albumSlugLength = 64

    /// An album's slug: ``slugify(_:empty:)`` of its name, and when that is longer than
    /// ``albumSlugLength``, its start (cut at a dash) and 8 hex digits of a hash of the whole
    /// name, so that two long names that start alike stay apart.
    static func albumSlug(of name: String) -> String {
        let slug = slugify(name)
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

    /// The albums page: every album with its first photo as a cover.
    func albumsPageModel(grid: GridStyle) -> AlbumsPageViewModel {
        AlbumsPageViewModel(
            site: PageViewModel.Site(title: siteTitle),
            title: "Albums · \(siteTitle)",
            albums: albums.enumerated().compactMap { offset, album in
                guard let first = album.items.first else { return nil }
                return AlbumsPageViewModel.Cover(
                    photo: PhotoViewModel(for: first, slug: nil, eager: offset < 4, grid: grid),
                    albumTitle: album.title,
                    albumHref: "album-\(album.slug).html", photoCount: album.items.count)
            }
        )
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
                number: number, href: page.siblings[number - 1], current: number == page.number)
        }
        let navigation = PageViewModel.Navigation(
            number: page.number, count: pageCount, links: links,
            previous: page.number > 1 ? page.siblings[page.number - 2] : nil,
            next: page.number < pageCount ? page.siblings[page.number] : nil)
        let albumLinks = albums.map { album in
            PageViewModel.AlbumLink(
                title: album.title, href: "album-\(album.slug).html", photoCount: album.items.count,
                current: album.slug == page.album?.slug)
        }
        let canonical = gallery.baseDirectory.map { ($0 + page.path).escapableInTemplates }
        return PageViewModel(
            site: PageViewModel.Site(title: siteTitle),
            title: page.album.map { "\($0.title) · \(siteTitle)" } ?? siteTitle,
            isIndex: page.album == nil,
            photos: photos,
            photoCount: page.album?.items.count ?? gallery.items.count,
            page: navigation,
            // With an albums page, the header links to it instead of listing every album.
            albums: hasAlbumsPage ? [] : albumLinks,
            albumsPage: hasAlbumsPage
                ? PageViewModel.AlbumsPageLink(href: Self.albumsPagePath, count: albums.count) : nil,
            // The intro opens the gallery's first page only.
            intro: page.album == nil && page.number == 1 && !gallery.introHTML.isEmpty ? gallery.introHTML : nil,
            albumTitle: page.album?.title,
            canonical: canonical,
            grid: grid,
            path: page.path
        )
    }

    /// The index page (`index.html`, `page-N.html`) that shows the photo at `offset` in the feed.
    func gridPagePath(ofOffset offset: Int) -> String {
        let number = offset / pageSize + 1
        return number == 1 ? "index.html" : "page-\(number).html"
    }

    /// The photo pages, each built when asked for (``PhotoPages``).
    func photoPages(slugs: [Int: String], showsCameraDetails: Bool) -> PhotoPages {
        PhotoPages(plan: self, slugs: slugs, showsCameraDetails: showsCameraDetails)
    }

    /// Every photo page's path and values, in gallery order; neighbours are the photos before and
    /// after it that have pages. A page's values are built when asked for, so that a gallery of
    /// 100,000 photos never holds them all.
    struct PhotoPages: Sendable {
        let plan: PagePlan
        let slugs: [Int: String]
        let showsCameraDetails: Bool
        /// The offsets in the gallery of the photos that have a page.
        let shown: [Int]
        let albumsByName: [String: Album]

        init(plan: PagePlan, slugs: [Int: String], showsCameraDetails: Bool) {
            self.plan = plan
            self.slugs = slugs
            self.showsCameraDetails = showsCameraDetails
            shown = plan.gallery.items.indices.filter { offset in
                let item = plan.gallery.items[offset]
                return slugs[item.photo.index] != nil && item.image != nil
            }
            albumsByName = Dictionary(plan.albums.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
            let siteTitle = plan.gallery.title.escapableInTemplates
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
                sizes: PhotoPageViewModel.sizes(width: width, height: height))
            let album = item.photo.album.flatMap { albumsByName[$0] }.map { album in
                PhotoPageViewModel.Link(href: "../album-\(album.slug).html", title: album.title)
            }
            let card = plan.gallery.baseDirectory.flatMap { base in
                image.flatMap(PhotoPageViewModel.cardRendition(of:)).map { rendition in
                    PhotoPageViewModel.Card(
                        url: (base + path).escapableInTemplates, image: (base + rendition.path).escapableInTemplates,
                        imageType: rendition.format.mimeType, imageWidth: rendition.width,
                        imageHeight: rendition.height)
                }
            }
            let camera = showsCameraDetails ? image?.camera.map { $0.parts.joined(separator: " · ") } : nil
            let heading = item.displayTitle
            let model = PhotoPageViewModel(
                site: PageViewModel.Site(title: siteTitle),
                title: "\(heading) · \(siteTitle)",
                heading: heading,
                said: PhotoPageViewModel.Said(item),
                photo: photo,
                width: width, height: height,
                number: position + 1, count: shown.count,
                album: album,
                previous: neighbour(position - 1),
                next: neighbour(position + 1),
                grid: PhotoPageViewModel.Link(
                    href: "../\(plan.gridPagePath(ofOffset: offset))#\(slug)", title: "All photos"),
                camera: camera?.isEmpty == false ? camera : nil,
                card: card,
                canonical: card?.url,
                structuredData: PhotoPageViewModel.ImageObject.json(
                    for: item,
                    contentUrl: largest.map { (plan.gallery.baseDirectory ?? "../") + $0.path },
                    width: width, height: height)
            )
            return (path, model)
        }

        private func neighbour(_ position: Int) -> PhotoPageViewModel.Link? {
            guard shown.indices.contains(position) else { return nil }
            let item = plan.gallery.items[shown[position]]
            return PhotoPageViewModel.Link(href: "\(slugs[item.photo.index] ?? "").html", title: item.displayTitle)
        }
    }
}
