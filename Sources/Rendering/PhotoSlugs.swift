import Foundation
import GalleryConcurrency
import GalleryCore

/// The names of the photo pages (`photos/<slug>.html`): readable, and stable across rebuilds.
///
/// A slug is the photo's title, shortened, and a key: the feed's own id when it is short, else 8
/// hex digits of a hash of it (or of the image URL when the feed names no id). The title alone
/// would collide; the position alone would move every page when a photo is added. Two photos that
/// still meet (a feed that repeats an id) are told apart by `-2`, `-3` in feed order.
enum PhotoSlugs {
    static let titleLength = 48
    static let keyLength = 24

    static func pagePath(of slug: String) -> String { "photos/\(slug).html" }

    /// The slug of each item that has an image, by feed index, made on every core (100,000 of
    /// them take most of a second).
    static func slugs(of items: [GalleryItem]) async -> [Int: String] {
        unique(
            await items.filter { $0.image != nil }.concurrentMap {
                ($0.photo.index, slug(of: $0.photo, sourceName: $0.sourceName))
            })
    }

    /// Slugs that meet get `-2`, `-3` in feed order.
    private static func unique(_ bases: [(index: Int, slug: String)]) -> [Int: String] {
        var result: [Int: String] = [:]
        result.reserveCapacity(bases.count)
        var used: Set<String> = []
        used.reserveCapacity(bases.count)
        for (index, base) in bases {
            var slug = base
            var suffix = 2
            while !used.insert(slug).inserted {
                slug = "\(base)-\(suffix)"
                suffix += 1
            }
            result[index] = slug
        }
        return result
    }

    /// A photo behind a content warning has no title part: its title is behind the warning, and
    /// an address is seen before anyone asks to see it.
    static func slug(of photo: Photo, sourceName: String? = nil) -> String {
        let titlePart =
            photo.contentWarning == nil ? shortened(PagePlan.slugify(photo.title, empty: "")) : ""
        let key: String
        let idSlug = PagePlan.slugify(withoutImageExtension(photo.id), empty: "")
        if photo.hasFeedID, !idSlug.isEmpty, idSlug.count <= keyLength {
            key = idSlug
        } else {
            key = hexHash(photo.hasFeedID ? photo.id : sourceName ?? photo.source.absoluteString)
        }
        if titlePart.isEmpty { return "photo-\(key)" }
        // A folder feed's id is the file's name: `dune.jpg` under the title `dune`.
        if key == titlePart || key.hasPrefix(titlePart + "-") { return key }
        return "\(titlePart)-\(key)"
    }

    /// `trips/dune.jpg` -> `trips/dune`, `waves.mp4` -> `waves`: a folder feed's ids are file names.
    private static func withoutImageExtension(_ id: String) -> String {
        guard let dot = id.lastIndex(of: "."), !id[dot...].contains("/") else { return id }
        let known: Set<String> = [".jpg", ".jpeg", ".png", ".webp", ".avif", ".gif", ".tif", ".tiff", ".heic", ".heif"]
        let type = id[dot...].lowercased()
        return known.contains(type) || MediaKind.videoExtensions.contains(String(type.dropFirst()))
            ? String(id[..<dot]) : id
    }

    /// At most ``titleLength`` characters, cut at a dash.
    private static func shortened(_ slug: String) -> String {
        guard slug.count > titleLength else { return slug }
        let prefix = slug.prefix(titleLength)
        guard let dash = prefix.lastIndex(of: "-") else { return String(prefix) }
        return String(prefix[..<dash])
    }

    /// 8 hex digits of FNV-1a (64 bits): the same on every machine and every run.
    static func hexHash(_ text: String) -> String {
        let hex = String(fnv1a64(text) >> 32, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
