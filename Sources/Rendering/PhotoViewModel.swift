import Foundation
import GalleryCore
import Mustache

/// The values of one photo tile, typed: the theme's markup contract (src, srcset,
/// sizes, width, height, alt, lazy or eager loading, placeholder style). Templates read them by
/// name through `MustacheParent`, without reflection.
struct PhotoViewModel: Sendable, MustacheParent, Encodable {
    /// One `<source>` of a `<picture>`: a format other than the fallback.
    struct Source: Sendable, MustacheParent, Encodable {
        var type: String
        var srcset: String
        var sizes: String

        func child(named name: String) -> Any? {
            switch name {
            case "type": type
            case "srcset": srcset
            case "sizes": sizes
            default: nil
            }
        }
    }

    /// The image of a tile that has one.
    struct Image: Sendable, MustacheParent, Encodable {
        /// The largest rendition.
        var href: String
        /// The photo's own page.
        var page: String
        /// The photo's slug: its page's name, and the tile's `id` (the photo page links back to it).
        var slug: String
        var src: String
        var srcset: String
        var sizes: String
        var width: Int
        var height: Int
        /// Width over height, for the justified rows (`--ar`).
        var aspect: String
        var eager: Bool
        /// Loaded lazily but asked for first: the largest tile of a common window's first screen,
        /// below the eager first row (``TileLayout/leads(aspects:after:)``).
        var lead = false
        /// Empty for a photo with transparency: a placeholder would show through it.
        var placeholderStyle: String
        var sources: [Source]
        /// A clip's videos; nil for a photo.
        var clip: ClipViewModel?
        /// A Live Photo's motion, as the viewer reads it (`data-motion`); nil for any other.
        var motion: String?

        func child(named name: String) -> Any? {
            switch name {
            case "href": href
            case "page": page
            case "slug": slug
            case "src": src
            case "srcset": srcset
            case "sizes": sizes
            case "width": width
            case "height": height
            case "aspect": aspect
            case "eager": eager
            case "lead": lead
            case "placeholderStyle": placeholderStyle.isEmpty ? nil : placeholderStyle
            case "sources": sources
            case "hasSources": !sources.isEmpty
            case "clip": clip
            case "motion": motion
            default: nil
            }
        }
    }

    var title: String
    var alt: String
    /// The title under the tile (`tile_captions:`); nil for none.
    var caption: String?
    /// The words of the photo's content warning (``GalleryItem/warningText(in:)``): the tile shows
    /// its blurred preview and these until the visitor asks to see the photo. Nil for most photos.
    var warning: String?
    var link: String?
    var image: Image?
    /// Why there is no image, for a placeholder tile.
    var failure: String?
    /// The tile's own markup, once rendered with `photo.mustache`: made from the values above,
    /// so not part of a page's fingerprint.
    var html = ""
    /// On a grid page, the tile's wave (`w0`, `w1`, `w2`: its place on the page, in runs of
    /// ``waveLength``), by which style.css shows rows while the page is still arriving.
    var wave: String?
    /// For the tile's strings (`{{t.source}}`); a page's fingerprint has it through its site.
    private var language: SiteLanguage

    private enum CodingKeys: String, CodingKey {
        case title, alt, caption, warning, link, image, failure, wave
    }

    /// Tiles in a wave: more than a row of the justified grid holds.
    static let waveLength = 24

    /// The wave of the tile at `offset` on its page: runs of ``waveLength`` tiles, named in turn.
    static func wave(at offset: Int) -> String {
        "w\(offset / waveLength % 3)"
    }

    /// - Parameters:
    ///   - slug: the photo page's name (``PhotoSlugs``); nil for a photo without an image.
    ///   - prefix: the way from the page that shows the tile to the output folder (`""` or `../`).
    ///   - sizes: the `sizes` of every `srcset`; by default the width `grid` draws the tile at.
    ///   - captions: which tiles show their title.
    init(
        for item: GalleryItem, slug: String?, eager: Bool, grid: GridStyle, prefix: String = "", sizes: String? = nil,
        captions: TileCaptions = .always, language: SiteLanguage = .english
    ) {
        self.language = language
        title = (item.said.title ?? "").escapableInTemplates
        // The image's own words: behind a warning, it is seen only once asked for.
        warning = item.warningText(in: language)
        alt = item.altText(in: language, behindWarning: true)
        switch captions {
        case .always: caption = title
        case .never: caption = nil
        // A title the photo was given: by the feed, a sidecar or the photo itself, not its file's name.
        case .auto: caption = (item.photo.stated.title ?? item.image?.metadata?.title) == nil ? nil : title
        }
        if caption?.isEmpty == true || warning != nil { caption = nil }
        link = item.photo.link?.absoluteString.escapableInTemplates
        guard let image = item.image, let fallback = Self.fallbackFormat(of: image) else {
            failure = (item.failure ?? "not processed").escapableInTemplates
            return
        }
        let byFormat = Dictionary(grouping: image.images, by: \.format)
        let fallbackRenditions = (byFormat[fallback] ?? []).sorted { $0.width < $1.width }
        let smallest = fallbackRenditions[0]
        let largest = fallbackRenditions[fallbackRenditions.count - 1]
        let sizes =
            sizes ?? TileLayout.sizes(aspect: Double(largest.width) / Double(max(1, largest.height)), grid: grid)
        let slug = slug ?? ""
        self.image = Image(
            href: prefix + largest.path,
            page: prefix + PhotoSlugs.pagePath(of: slug),
            slug: slug,
            src: prefix + smallest.path,
            srcset: Self.srcset(fallbackRenditions, prefix: prefix),
            sizes: sizes,
            width: smallest.width,
            height: smallest.height,
            aspect: TileLayout.aspectText(width: largest.width, height: largest.height),
            // A photo behind its warning is asked for only once shown.
            eager: eager && warning == nil,
            placeholderStyle: Self.placeholderStyle(of: image),
            sources: byFormat.keys.sorted().filter { $0 != fallback }.map { format in
                Source(
                    type: format.mimeType, srcset: Self.srcset(byFormat[format] ?? [], prefix: prefix), sizes: sizes)
            },
            clip: ClipViewModel(image: image, prefix: prefix),
            motion: ClipViewModel.viewerList(image.motion, prefix: prefix)
        )
    }

    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "alt": alt
        case "caption": caption
        case "warning": warning
        // The caption says again what the image's alt text says: screen readers skip it.
        case "captionRepeatsAlt": caption == alt && link == nil
        case "link": link
        case "image": image
        case "failure": failure
        case "html": html
        case "wave": wave
        case "t": ThemeStrings(language: language)
        default: nil
        }
    }

    /// The dominant colour and the blurred preview behind the photo while it loads; nothing for
    /// a photo with transparency, whose see-through parts must show the page, not the preview.
    static func placeholderStyle(of image: ProcessedImage) -> String {
        guard !image.hasTransparency else { return "" }
        return "background-color:\(image.placeholder.color);background-image:url(\(image.placeholder.dataURI))"
    }

    /// The format every browser shows: JPEG when made, else WebP, else what there is.
    static func fallbackFormat(of image: ProcessedImage) -> ImageFormat? {
        let formats = Set(image.images.map(\.format))
        return [.jpeg, .webp, .avif].first { formats.contains($0) }
    }

    static func srcset(_ renditions: [Rendition], prefix: String = "") -> String {
        renditions.sorted { $0.width < $1.width }.map { "\(prefix)\($0.path) \($0.width)w" }.joined(separator: ", ")
    }
}

/// How the default theme's grids lay tiles out, so that each tile's `sizes` names the width it is
/// drawn at: the browser then fetches the smallest rendition that is sharp.
///
/// Justified rows are laid out by the browser from numbers the build writes: each tile is a flex
/// item growing in proportion to its aspect ratio from a basis of `aspect x row height`, so every
/// tile of a row gets the same height and the row fills the width (the last row keeps its basis).
/// The row height is the CSS `--row` of style.css, per viewport width (``rowHeights``).
enum TileLayout {
    /// (smallest viewport width in CSS pixels, row height): style.css's `--row` steps.
    static let rowHeights: [(minWidth: Int, height: Int)] = [(1600, 300), (700, 220), (0, 110)]
    /// Rows stretch past their basis to fill the width; a tile is drawn up to about this much
    /// wider than `aspect x row` (a row grows until one more tile would fit, so less than one
    /// tile's share).
    static let stretch = 1.3
    /// A square tile's width: the square grid's columns (style.css).
    static let squareSizes = "(min-width: 1600px) 20vw, (min-width: 1100px) 25vw, (min-width: 700px) 33vw, 50vw"

    static func sizes(aspect: Double, grid: GridStyle) -> String {
        guard grid == .justified else { return squareSizes }
        return rowHeights.map { step in
            // A tile is never drawn wider than the viewport (a panorama gets a row of its own):
            // past the step's smallest viewport (a 390-pixel phone for the last), say so.
            let width = Int((aspect * Double(step.height) * stretch).rounded(.up))
            let length = width >= max(step.minWidth, 390) ? "100vw" : "\(width)px"
            return step.minWidth > 0 ? "(min-width: \(step.minWidth)px) \(length)" : length
        }.joined(separator: ", ")
    }

    /// Windows the first screen is worked out for: a phone, the two commonest desktop screens and a
    /// large one (width, height in CSS pixels).
    static let commonWindows: [(width: Int, height: Int)] = [(390, 844), (1366, 768), (1920, 1080), (2560, 1440)]

    /// Room above the grid on a page: its title and the links under it, at the least.
    static let headerHeight = 120.0

    /// The tiles after the first `eagerCount` that are each the largest of some common window's
    /// first screen (a panorama in the second row is larger than any tile of the first), by
    /// offset, counting only the part of each in the window. The browser's rows are worked out
    /// as style.css lays them: a tile's basis is `aspect x row`, a row takes tiles while their
    /// bases and gaps fit, then grows to the width; below ``headerHeight``, with a caption's line
    /// under a row when `captions`, and a desktop window's scroll bar (15 pixels) kept.
    static func leads(aspects: [Double], after eagerCount: Int, captions: Bool = true) -> Set<Int> {
        var leads: Set<Int> = []
        for window in commonWindows {
            guard let step = rowHeights.first(where: { window.width >= $0.minWidth }) else { continue }
            let row = Double(step.height)
            let gap = window.width >= 700 ? 10.0 : 8.0
            let scrollBar = window.width >= 700 ? 15.0 : 0
            let inner = Double(window.width) - scrollBar
            let padding = min(max(8, inner * 0.025), 32)
            let width = min(inner, 2400) - 2 * padding
            let caption = captions ? 23.0 : 0
            let bottom = Double(window.height)
            var top = headerHeight
            var start = 0
            var largest: (offset: Int, area: Double)?
            while start < aspects.count, top < bottom {
                var end = start + 1
                var basis = aspects[start] * row
                while end < aspects.count, basis + gap + aspects[end] * row <= width {
                    basis += gap + aspects[end] * row
                    end += 1
                }
                // The last row keeps its basis; a tile wider than the window shrinks to it.
                let spare = width - gap * Double(end - start - 1)
                let scale = end == aspects.count ? min(1, spare / basis) : spare / basis
                let height = row * scale
                let shown = max(0, min(top + height, bottom) - top)
                for offset in start..<end {
                    let area = aspects[offset] * height * shown
                    // Larger by more than rounding: of tiles alike, the first is the largest.
                    if area > (largest?.area ?? 0) * 1.001 { largest = (offset, area) }
                }
                top += height + caption + gap
                start = end
            }
            if let largest, largest.offset >= eagerCount { leads.insert(largest.offset) }
        }
        return leads
    }

    /// `1.5`, `0.6667`: four decimals at most, so that the page does not change with rounding
    /// noise and the browser's rows keep the ratio within a thousandth of a pixel per pixel.
    static func aspectText(width: Int, height: Int) -> String {
        // In ten-thousandths, written without Foundation's formatting (100,000 tiles a build).
        let value = Int((Double(width) / Double(max(1, height)) * 10_000).rounded())
        var fraction = value % 10_000
        guard fraction > 0 else { return String(value / 10_000) }
        var digits = 4
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        return "\(value / 10_000)." + String(repeating: "0", count: digits - text.count) + text
    }
}
