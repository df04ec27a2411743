import GalleryCore

/// The markup values of one photo tile: the contract of shared/DESIGN.md (src, srcset, sizes,
/// width, height, alt, lazy or eager loading, placeholder style).
enum PhotoViewModel {
    /// A tile's values with its markup (`html`), handed from the task that rendered it to the
    /// pages that show it. Unchecked: the values are strings, numbers, booleans and arrays and
    /// dictionaries of them, never changed once made.
    struct Rendered: @unchecked Sendable {
        var context: [String: Any]
    }

    /// The rendered width of a tile, as the theme's grid lays it out (2, 3 then 4 columns).
    static let sizes = "(min-width: 1100px) 25vw, (min-width: 700px) 33vw, 50vw"

    static func context(for item: GalleryItem, eager: Bool) -> [String: Any] {
        let title = item.photo.title.escapableInTemplates
        var context: [String: Any] = [
            "title": title,
            "alt": title.isEmpty ? "Photo \(item.photo.index + 1)" : title,
        ]
        if let link = item.photo.link { context["link"] = link.absoluteString.escapableInTemplates }
        guard let image = item.image, let fallback = fallbackFormat(of: image) else {
            context["failure"] = (item.failure ?? "not processed").escapableInTemplates
            return context
        }
        let byFormat = Dictionary(grouping: image.renditions, by: \.format)
        let fallbackRenditions = (byFormat[fallback] ?? []).sorted { $0.width < $1.width }
        let smallest = fallbackRenditions[0]
        let largest = fallbackRenditions[fallbackRenditions.count - 1]
        let sources: [[String: Any]] = byFormat.keys.sorted().filter { $0 != fallback }.map { format in
            ["type": format.mimeType, "srcset": srcset(byFormat[format] ?? []), "sizes": sizes]
        }
        context["image"] =
            [
                "href": largest.path,
                "src": smallest.path,
                "srcset": srcset(fallbackRenditions),
                "sizes": sizes,
                "width": smallest.width,
                "height": smallest.height,
                "eager": eager,
                "placeholderStyle": "background-color:\(image.placeholder.color);"
                    + "background-image:url(\(image.placeholder.dataURI))",
                "sources": sources,
                "hasSources": !sources.isEmpty,
            ] as [String: Any]
        return context
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
