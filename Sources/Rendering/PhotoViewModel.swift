import GalleryCore
import Mustache

/// The values of one photo tile, typed: the markup contract of shared/DESIGN.md (src, srcset,
/// sizes, width, height, alt, lazy or eager loading, placeholder style). Templates read them by
/// name through `MustacheParent`, without reflection.
struct PhotoViewModel: Sendable, MustacheParent {
    /// The rendered width of a tile, as the theme's grid lays it out (2, 3 then 4 columns).
    static let sizes = "(min-width: 1100px) 25vw, (min-width: 700px) 33vw, 50vw"

    /// One `<source>` of a `<picture>`: a format other than the fallback.
    struct Source: Sendable, MustacheParent {
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
    struct Image: Sendable, MustacheParent {
        var href: String
        var src: String
        var srcset: String
        var sizes: String
        var width: Int
        var height: Int
        var eager: Bool
        var placeholderStyle: String
        var sources: [Source]

        func child(named name: String) -> Any? {
            switch name {
            case "href": href
            case "src": src
            case "srcset": srcset
            case "sizes": sizes
            case "width": width
            case "height": height
            case "eager": eager
            case "placeholderStyle": placeholderStyle
            case "sources": sources
            case "hasSources": !sources.isEmpty
            default: nil
            }
        }
    }

    var title: String
    var alt: String
    var link: String?
    var image: Image?
    /// Why there is no image, for a placeholder tile.
    var failure: String?
    /// The tile's own markup, once rendered with `photo.mustache`.
    var html = ""

    init(for item: GalleryItem, eager: Bool) {
        title = item.photo.title.escapableInTemplates
        alt = title.isEmpty ? "Photo \(item.photo.index + 1)" : title
        link = item.photo.link?.absoluteString.escapableInTemplates
        guard let image = item.image, let fallback = Self.fallbackFormat(of: image) else {
            failure = (item.failure ?? "not processed").escapableInTemplates
            return
        }
        let byFormat = Dictionary(grouping: image.renditions, by: \.format)
        let fallbackRenditions = (byFormat[fallback] ?? []).sorted { $0.width < $1.width }
        let smallest = fallbackRenditions[0]
        let largest = fallbackRenditions[fallbackRenditions.count - 1]
        self.image = Image(
            href: largest.path,
            src: smallest.path,
            srcset: Self.srcset(fallbackRenditions),
            sizes: Self.sizes,
            width: smallest.width,
            height: smallest.height,
            eager: eager,
            placeholderStyle: "background-color:\(image.placeholder.color);"
                + "background-image:url(\(image.placeholder.dataURI))",
            sources: byFormat.keys.sorted().filter { $0 != fallback }.map { format in
                Source(type: format.mimeType, srcset: Self.srcset(byFormat[format] ?? []), sizes: Self.sizes)
            }
        )
    }

    func child(named name: String) -> Any? {
        switch name {
        case "title": title
        case "alt": alt
        case "link": link
        case "image": image
        case "failure": failure
        case "html": html
        default: nil
        }
    }

    /// The format every browser shows: JPEG when made, else WebP, else what there is.
    static func fallbackFormat(of image: ProcessedImage) -> ImageFormat? {
        let formats = Set(image.renditions.map(\.format))
        return [.jpeg, .webp, .avif].first { formats.contains($0) }
    }

    static func srcset(_ renditions: [Rendition]) -> String {
        renditions.sorted { $0.width < $1.width }.map { "\($0.path) \($0.width)w" }.joined(separator: ", ")
    }
}
