import Foundation

/// Everything `gallery.yml` says about a site, with the defaults filled in.
///
/// Paths (`feed.url` when local, `description`, `output`, `cache`, `templates`) are kept as written,
/// relative to the site folder; ``SiteLayout`` resolves them.
package struct SiteConfig: Sendable, Equatable {
    package var title: String
    /// A Markdown file with the intro text; `index.md` is used when present and this is not set.
    package var description: String?
    package var feed: FeedSettings
    package var images: ImageSettings
    package var output: String
    package var cache: String
    /// The disk cache's size bound in bytes; nil means unbounded.
    package var cacheLimit: Int64?
    /// Requests in flight at once, over all hosts.
    package var concurrency: Int
    /// Requests in flight at once to one host.
    package var perHost: Int
    package var maxImageBytes: Int64
    package var maxPixels: Int
    package var pageSize: Int
    /// A theme folder of the site's own; nil means the built-in theme.
    package var templates: String?
    package var baseURL: String?
    /// Failed photos tolerated before the build exits 1; nil means any number.
    package var maxFailures: Int?
    /// Lets raw HTML in the site's Markdown through; off by default.
    package var allowRawHTML: Bool
    /// `exif: true`: each photo page shows what the camera recorded (never where).
    package var showsCameraDetails = false
    /// `albums:` the feed's albums, or one per year taken.
    package var albums = AlbumSource.feed
    /// `location:` how much of where photos were taken the site shows; nothing by default.
    package var location = LocationPrecision.off
    /// `downloads:` what each photo's download button gives, with a zip of each album; none by
    /// default.
    package var downloads = DownloadChoice.off
    /// `keyword_pages`: each keyword the photos carry gets a page, linked from theirs.
    package var keywordPages = true
    /// How grid pages lay out their tiles.
    package var grid = GridStyle.justified
    /// Which tiles show their title (`tile_captions:`).
    package var tileCaptions = TileCaptions.auto
    /// The order of the photos (`sort:`).
    package var order = PhotoOrder.feed
    /// `.nojekyll` and `_headers` for GitHub Pages, Netlify and Cloudflare Pages; `host_files: false`
    /// leaves them out.
    package var hostFiles = true
    /// The published site a build with an empty cache starts warm from (`seed:`), ending in `/`
    /// or not; nil: none.
    package var seed: String?
    /// The remote cache tier shared by every machine that builds the site (`remote_cache:`): an
    /// http(s) URL or `s3://bucket/prefix`; nil: none. Its credentials come from the environment.
    package var remoteCache: String?
    /// Whether a folder feed follows symbolic links that lead outside the site folder and the
    /// feed folder (`follow_symlinks:`); off, such a link is reported and not read.
    package var followsSymlinks = false
    /// `language:` and `strings:`: the pages' language, its strings as the site gives them.
    package var language = SiteLanguage.english
    /// `video:` the web videos made of clips, and the limits clips are checked against.
    package var video = VideoSettings()

    package init(
        title: String,
        description: String? = nil,
        feed: FeedSettings,
        images: ImageSettings = ImageSettings(),
        output: String = "public",
        cache: String = ".gallerygen-cache",
        cacheLimit: Int64? = nil,
        concurrency: Int = 16,
        perHost: Int = 6,
        maxImageBytes: Int64 = 50_000_000,
        maxPixels: Int = 100_000_000,
        pageSize: Int = 60,
        templates: String? = nil,
        baseURL: String? = nil,
        maxFailures: Int? = nil,
        allowRawHTML: Bool = false
    ) {
        self.title = title
        self.description = description
        self.feed = feed
        self.images = images
        self.output = output
        self.cache = cache
        self.cacheLimit = cacheLimit
        self.concurrency = concurrency
        self.perHost = perHost
        self.maxImageBytes = maxImageBytes
        self.maxPixels = maxPixels
        self.pageSize = pageSize
        self.templates = templates
        self.baseURL = baseURL
        self.maxFailures = maxFailures
        self.allowRawHTML = allowRawHTML
    }
}

/// The grid of the default theme.
/// The order of the gallery's photos (`sort:`); ties, and photos without the value sorted on,
/// keep the feed's order, so that every build orders them the same way.
package enum PhotoOrder: String, Sendable, CaseIterable, Encodable {
    /// As the feed lists them (a folder: by name, top folder first).
    case feed
    /// By file name, in Unicode order ignoring case.
    case name
    /// By the time the photo was taken, oldest first; photos with none after them.
    case oldest
    /// By the time the photo was taken, newest first; photos with none after them.
    case newest
}

/// Whether grid tiles show their photo's title under it (`tile_captions:`).
package enum TileCaptions: String, Sendable, CaseIterable, Encodable {
    /// Only a title the photo was given: none made from a file's name (a folder feed's).
    case auto
    /// Every tile, its title whatever gave it.
    case always = "true"
    /// None.
    case never = "false"
}

package enum GridStyle: String, Sendable, CaseIterable, Encodable {
    /// Whole photos in rows that fill the width, each at its own aspect ratio.
    case justified
    /// Square tiles, each photo cropped to its centre.
    case square
}

/// Where the feed comes from and how to read it.
package struct FeedSettings: Sendable, Equatable {
    /// http, https, file, or a path relative to the site folder.
    package var url: String
    package var format: FeedFormat
    /// Field mapping for JSON shapes that are none of the known ones.
    package var fields: FieldMapping?
    /// Where `url` is written in gallery.yml, for messages about it.
    package var urlLocation: SourceLocation?
    /// How pages after the first are found, and how many there may be.
    package var paging = FeedPaging()
    /// The secret the feed's server asks for, if any.
    package var credentials: FeedCredentials?
    /// Which of a Mastodon or Pixelfed account's posts are published (`feed.visibility`).
    package var visibility = PostVisibility.public
    /// What becomes of a service's sensitive posts (`feed.sensitive`).
    package var sensitive = SensitivePosts.leaveOut

    package init(
        url: String, format: FeedFormat = .auto, fields: FieldMapping? = nil, urlLocation: SourceLocation? = nil
    ) {
        self.url = url
        self.format = format
        self.fields = fields
        self.urlLocation = urlLocation
    }
}

/// Which posts of a Mastodon or Pixelfed account a gallery publishes. Followers-only and direct
/// posts never are, whatever token reads the account; a post marked sensitive or behind a content
/// warning is left out unless ``SensitivePosts/behindWarning`` is asked for.
package enum PostVisibility: String, Sendable, CaseIterable {
    /// Public posts alone (the default).
    case `public`
    /// Public and unlisted posts.
    case unlisted
}

/// What becomes of a service's post marked sensitive or behind a content warning
/// (`feed.sensitive`).
package enum SensitivePosts: String, Sendable, CaseIterable {
    /// Not published (the default).
    case leaveOut = "leave_out"
    /// Published behind its warning: blurred until the visitor asks to see it.
    case behindWarning = "behind_warning"
}

/// The feed shapes gallerygen reads (docs/feeds.md describes each).
package enum FeedFormat: String, Sendable, CaseIterable {
    case auto, jsonplaceholder, itunes, jsonfeed, list, folder
    /// RSS 2.0 or Atom, with Media RSS.
    case rss
    /// A WebDAV folder (Nextcloud, ownCloud, Apache, any WebDAV server), listed with PROPFIND.
    case webdav
    /// Mastodon's (and Pixelfed's) statuses API.
    case mastodon
    /// Piwigo's `pwg.categories.getImages`.
    case piwigo
    /// Flickr's REST API: a photo set's or an account's photos.
    case flickr
}

/// Dotted key paths into each entry of a JSON feed of another shape, e.g. `image: media.large`.
package struct FieldMapping: Sendable, Equatable {
    /// Path from the document's root to the array of entries; empty when the root is the array.
    package var items: String
    package var image: String
    package var title: String?
    package var album: String?
    package var id: String?
    package var link: String?
    /// An RFC 3339 date (or a bare day) of publication.
    package var date: String?
    /// What the photo says (``PhotoMetadata``): its caption, alt text, keywords (a list, or words
    /// split by commas), the time it was taken, its creator, rights and licence's address.
    package var description: String?
    package var alt: String?
    package var keywords: String?
    package var taken: String?
    package var creator: String?
    package var rights: String?
    package var licence: String?
    /// A clip's URL: an entry with one is a clip, shown with a poster made from it.
    package var video: String?

    package init(
        items: String = "",
        image: String,
        title: String? = nil,
        album: String? = nil,
        id: String? = nil,
        link: String? = nil,
        date: String? = nil,
        description: String? = nil, alt: String? = nil, keywords: String? = nil, taken: String? = nil,
        creator: String? = nil, rights: String? = nil, licence: String? = nil, video: String? = nil
    ) {
        self.video = video
        self.items = items
        self.image = image
        self.title = title
        self.album = album
        self.id = id
        self.link = link
        self.date = date
        self.description = description
        self.alt = alt
        self.keywords = keywords
        self.taken = taken
        self.creator = creator
        self.rights = rights
        self.licence = licence
    }
}

/// The renditions to make of every photo.
package struct ImageSettings: Sendable, Equatable {
    /// The default has 480 for the desktop grid: a 3:2 tile in a 220-px row is drawn 330-430 px
    /// wide, and without 480 the browser took the 640 (a third more bytes before any scroll).
    package var widths: [Int]
    package var formats: [ImageFormat]
    /// The default, 75, is Hugo's; 80 makes WebP tiles about 20% bigger (`git log -p BENCHMARKS.md`).
    package var quality: Int
    /// Encoder effort, 0 (fastest) to 6 (smallest files), for WebP and AVIF. The default, 2, encodes
    /// WebP about twice as fast as libvips' default of 4 for about 4% more bytes (BENCHMARKS.md's
    /// history, `git log -p BENCHMARKS.md`).
    package var effort: Int

    package init(
        widths: [Int] = [320, 480, 640, 1280, 1920], formats: [ImageFormat] = [.webp], quality: Int = 75,
        effort: Int = 2
    ) {
        self.widths = widths
        self.formats = formats
        self.quality = quality
        self.effort = effort
    }
}

/// The format of a rendition: an image format for photos and posters, or a web video format for
/// a clip's videos (``isVideo``; never one of `images.formats`).
package enum ImageFormat: String, Sendable, CaseIterable, Codable, Comparable {
    case avif, webp, jpeg
    case webm, mp4

    /// A clip's web video, not an image.
    package var isVideo: Bool { self == .webm || self == .mp4 }

    package var fileExtension: String {
        switch self {
        case .avif: "avif"
        case .webp: "webp"
        case .jpeg: "jpg"
        case .webm: "webm"
        case .mp4: "mp4"
        }
    }

    package var mimeType: String {
        switch self {
        case .avif: "image/avif"
        case .webp: "image/webp"
        case .jpeg: "image/jpeg"
        case .webm: "video/webm"
        case .mp4: "video/mp4"
        }
    }

    /// Most compact first: the order of `<source>` elements in a `<picture>`.
    package static func < (lhs: ImageFormat, rhs: ImageFormat) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .avif: 0
        case .webp: 1
        case .jpeg: 2
        case .webm: 3
        case .mp4: 4
        }
    }
}
