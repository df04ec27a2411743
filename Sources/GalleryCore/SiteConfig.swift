import Foundation

/// Everything `gallery.yml` says about a site, with the defaults of shared/DESIGN.md filled in.
///
/// Paths (`feed.url` when local, `description`, `output`, `cache`, `templates`) are kept as written,
/// relative to the site folder; ``SiteLayout`` resolves them.
public struct SiteConfig: Sendable, Equatable {
    public var title: String
    /// A Markdown file with the intro text; `index.md` is used when present and this is not set.
    public var description: String?
    public var feed: FeedSettings
    public var images: ImageSettings
    public var output: String
    public var cache: String
    /// The disk cache's size bound in bytes; nil means unbounded.
    public var cacheLimit: Int64?
    /// Requests in flight at once, over all hosts.
    public var concurrency: Int
    /// Requests in flight at once to one host.
    public var perHost: Int
    public var maxImageBytes: Int64
    public var maxPixels: Int
    public var pageSize: Int
    /// A theme folder of the site's own; nil means the built-in theme.
    public var templates: String?
    public var baseURL: String?
    /// Failed photos tolerated before the build exits 1; nil means any number.
    public var maxFailures: Int?
    /// Lets raw HTML in the site's Markdown through; off by default.
    public var allowRawHTML: Bool

    public init(
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

/// Where the feed comes from and how to read it.
public struct FeedSettings: Sendable, Equatable {
    /// http, https, file, or a path relative to the site folder.
    public var url: String
    public var format: FeedFormat
    /// Field mapping for JSON shapes that are none of the known ones.
    public var fields: FieldMapping?
    /// Where `url` is written in gallery.yml, for messages about it.
    public var urlLocation: SourceLocation?

    public init(
        url: String, format: FeedFormat = .auto, fields: FieldMapping? = nil, urlLocation: SourceLocation? = nil
    ) {
        self.url = url
        self.format = format
        self.fields = fields
        self.urlLocation = urlLocation
    }
}

/// The feed shapes gallerygen reads (shared/feeds/ has an example of each).
public enum FeedFormat: String, Sendable, CaseIterable {
    case auto, jsonplaceholder, itunes, jsonfeed, list, folder
}

/// Dotted key paths into each entry of a JSON feed of another shape, e.g. `image: media.large`.
public struct FieldMapping: Sendable, Equatable {
    /// Path from the document's root to the array of entries; empty when the root is the array.
    public var items: String
    public var image: String
    public var title: String?
    public var album: String?
    public var id: String?
    public var link: String?

    public init(
        items: String = "",
        image: String,
        title: String? = nil,
        album: String? = nil,
        id: String? = nil,
        link: String? = nil
    ) {
        self.items = items
        self.image = image
        self.title = title
        self.album = album
        self.id = id
        self.link = link
    }
}

/// The renditions to make of every photo.
public struct ImageSettings: Sendable, Equatable {
    public var widths: [Int]
    public var formats: [ImageFormat]
    public var quality: Int
    /// Encoder effort, 0 (fastest) to 6 (smallest files), for WebP and AVIF. The default, 2, encodes
    /// WebP about twice as fast as libvips' default of 4 for about 4% more bytes (BENCHMARKS.md).
    public var effort: Int

    public init(widths: [Int] = [480, 960, 1600], formats: [ImageFormat] = [.webp], quality: Int = 80, effort: Int = 2)
    {
        self.widths = widths
        self.formats = formats
        self.quality = quality
        self.effort = effort
    }
}

/// An output image format.
public enum ImageFormat: String, Sendable, CaseIterable, Codable, Comparable {
    case avif, webp, jpeg

    public var fileExtension: String {
        switch self {
        case .avif: "avif"
        case .webp: "webp"
        case .jpeg: "jpg"
        }
    }

    public var mimeType: String {
        switch self {
        case .avif: "image/avif"
        case .webp: "image/webp"
        case .jpeg: "image/jpeg"
        }
    }

    /// Most compact first: the order of `<source>` elements in a `<picture>`.
    public static func < (lhs: ImageFormat, rhs: ImageFormat) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .avif: 0
        case .webp: 1
        case .jpeg: 2
        }
    }
}
