import GalleryCore
import Mustache

/// The values of one page of photos, typed, as `page.mustache` reads them.
struct PageViewModel: Sendable, MustacheParent, Encodable {
    /// The site's own values (`site.title`).
    struct Site: Sendable, MustacheParent, Encodable {
        var title: String
        /// The pages' language: in their fingerprints by its digest.
        var language: SiteLanguage
        var languageDigest: String
        /// ``viewerText(of:)``.
        var viewerText: String

        private enum CodingKeys: String, CodingKey {
            case title, languageDigest
        }

        var strings: ThemeStrings { ThemeStrings(language: language) }

        func child(named name: String) -> Any? {
            switch name {
            case "title": title
            case "lang": language.tag
            case "dir": language.direction
            case "viewerText": viewerText
            default: nil
            }
        }
    }

    /// Where this page stands among its siblings, and the links to them.
    struct Navigation: Sendable, MustacheParent, Encodable {
        /// One page link, or a gap standing for a run of pages left out.
        struct Link: Sendable, MustacheParent, Encodable {
            var number: Int?
            var href: String?
            var current = false
            /// The number as the site's language writes it.
            var text: String?

            func child(named name: String) -> Any? {
                switch name {
                case "number": text ?? number.map(String.init)
                case "href": href
                case "current": current
                case "gap": number == nil
                default: nil
                }
            }
        }

        var number: Int
        var count: Int
        var links: [Link]
        var previous: String?
        var next: String?
        /// `page 2`, for the title.
        var label = ""

        func child(named name: String) -> Any? {
            switch name {
            case "label": label
            case "number": number
            case "count": count
            case "hasMany": count > 1
            case "isNotFirst": number > 1
            case "links": links
            case "previous": previous
            case "next": next
            default: nil
            }
        }
    }

    /// An album in the header (without its count: a photo added would change every page), or a
    /// keyword on the keywords page (with it).
    struct AlbumLink: Sendable, MustacheParent, Encodable {
        var title: String
        var href: String
        /// As the site's language writes it.
        var photoCount: String?
        var current: Bool

        func child(named name: String) -> Any? {
            switch name {
            case "title": title
            case "href": href
            case "photoCount": photoCount
            case "current": current
            default: nil
            }
        }
    }

    /// The albums page, linked from the header when there are too many albums to list there.
    /// Without a count: the header is on every page, and an album added would change them all.
    struct AlbumsPageLink: Sendable, MustacheParent, Encodable {
        var href: String

        func child(named name: String) -> Any? {
            switch name {
            case "href": href
            default: nil
            }
        }
    }

    var site: Site
    var title: String
    var isIndex: Bool
    var photos: [PhotoViewModel]
    /// `200 photos`.
    /// "N photos", on the first page of the list.
    var photoCount: String?
    var page: Navigation
    /// Listed in the header (empty when they are on the albums page instead).
    var albums: [AlbumLink]
    var albumsPage: AlbumsPageLink?
    /// The keywords page, when photos have keywords and keyword pages are on.
    var keywordsPage: AlbumsPageLink?
    var intro: String?
    /// The album's title, or the keyword's heading.
    var albumTitle: String?
    /// The way up from an album: the gallery, then each album it is in.
    var breadcrumbs: [PhotoPageViewModel.Link] = []
    /// The album's `index.md` text, HTML, on its first page.
    var albumDescription: String?
    /// The album's zip (`downloads:`), on its first page.
    var albumDownload: PhotoPageViewModel.DownloadLink?
    /// The albums inside this one, on its first page.
    var subalbums: [AlbumsPageViewModel.Cover] = []
    var canonical: String?
    /// Open Graph's card: the page's address and a photo (only with `base_url`).
    var card: PhotoPageViewModel.Card?
    var grid: GridStyle
    /// The page's own file name: its `<base>`, so that its links stay put while the viewer
    /// shows a photo page's address in the address bar.
    var path: String

    func child(named name: String) -> Any? {
        switch name {
        case "path": path
        case "squareGrid": grid == .square
        case "site": site
        case "t": site.strings
        case "title": title
        case "isIndex": isIndex
        case "photos": photos
        case "photoCount": photoCount
        case "page": page
        case "hasAlbums": !albums.isEmpty
        case "albums": ["items": albums]
        case "albumsPage": albumsPage
        case "keywordsPage": keywordsPage
        case "breadcrumbs": breadcrumbs
        case "hasBreadcrumbs": !breadcrumbs.isEmpty
        case "albumDescription": albumDescription
        case "albumDownload": albumDownload
        case "subalbums": subalbums
        case "hasSubalbums": !subalbums.isEmpty
        case "intro": intro
        case "albumTitle": albumTitle
        case "canonical": canonical
        case "card": card
        default: nil
        }
    }
}

/// The values of the albums page: each album with its first photo as a cover.
struct AlbumsPageViewModel: Sendable, MustacheParent {
    struct Cover: Sendable, MustacheParent, Encodable {
        var photo: PhotoViewModel
        var albumTitle: String
        var albumHref: String
        /// As the site's language writes it.
        var photoCount: String

        func child(named name: String) -> Any? {
            switch name {
            case "albumTitle": albumTitle
            case "albumHref": albumHref
            case "photoCount": photoCount
            // The tile's shape, for the grid's `--ar` (a cover's image values are its photo's).
            case "aspect": photo.image?.aspect
            default: photo.child(named: name)
            }
        }
    }

    var site: PageViewModel.Site
    var title: String
    var albums: [Cover]

    func child(named name: String) -> Any? {
        switch name {
        case "site": site
        case "t": site.strings
        case "title": title
        case "albumCount": site.language.text("album_count", count: albums.count).escapableInTemplates
        case "albums": albums
        default: nil
        }
    }
}

/// The values of the keywords page: each keyword with the number of its photos.
struct KeywordsPageViewModel: Sendable, MustacheParent {
    var site: PageViewModel.Site
    var title: String
    var keywords: [PageViewModel.AlbumLink]

    func child(named name: String) -> Any? {
        switch name {
        case "site": site
        case "t": site.strings
        case "title": title
        case "keywordCount": site.language.text("keyword_count", count: keywords.count).escapableInTemplates
        case "keywords": keywords
        default: nil
        }
    }
}
