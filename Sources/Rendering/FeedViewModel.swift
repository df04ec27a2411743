import Foundation
import GalleryCore
import Mustache

/// The values of the gallery's Atom feed (`atom.mustache` -> `feed.xml`) and JSON Feed
/// (`jsonfeed.mustache` -> `feed.json`): the newest photos first, each with its image.
///
/// Text is escaped by the template as Mustache escapes (`{{title}}`: right for XML too); a JSON
/// template reads the same values as JSON literals, quotes included, under `json`
/// (`{{{json.title}}}`).
struct FeedViewModel: Sendable, MustacheParent {
    /// Entries in a feed: enough for a reader to catch up, not a copy of a 10,000-photo gallery.
    static let entryLimit = 50
    static let atomPath = "feed.xml"
    static let jsonFeedPath = "feed.json"

    struct Entry: Sendable, MustacheParent {
        var id: String
        var title: String
        var url: String
        var updated: String
        var image: String
        var imageType: String
        var imageWidth: Int
        var imageHeight: Int
        /// What the photo says: its alt text, caption, keywords, creator and rights.
        var alt: String
        var summary: String?
        var tags: [String] = []
        var author: String?
        var rights: String?
        var isLast = false
        /// A clip's largest MP4, its type and size: an enclosure beside the poster.
        var video: String?
        var videoType = ImageFormat.mp4.mimeType
        var videoBytes: Int64 = 0

        /// The entry's body: its image and caption, as HTML (the templates escape it once more
        /// for XML).
        var contentHTML: String {
            "<p><img src=\"\(Sitemap.escaped(image))\" width=\"\(imageWidth)\" height=\"\(imageHeight)\" "
                + "alt=\"\(Sitemap.escaped(alt))\"></p>"
                + (summary.map { "\n" + PhotoPageViewModel.Said.paragraphs($0) } ?? "")
        }

        func child(named name: String) -> Any? {
            switch name {
            case "id": id
            case "title": title
            case "url": url
            case "updated": updated
            case "image": image
            case "imageType": imageType
            case "imageWidth": imageWidth
            case "imageHeight": imageHeight
            case "isLast": isLast
            case "contentHTML": contentHTML
            case "summary": summary
            case "tags": tags.isEmpty ? nil : tags
            case "author": author
            case "rights": rights
            case "video": video
            case "videoType": videoType
            case "videoBytes": videoBytes
            case "json":
                JSONLiterals(
                    values: [
                        "id": id, "title": title, "url": url, "updated": updated, "image": image,
                        "contentHTML": contentHTML, "summary": summary, "author": author, "video": video,
                        "videoType": video.map { _ in videoType },
                    ].compactMapValues { $0 },
                    lists: tags.isEmpty ? [:] : ["tags": tags])
            default: nil
            }
        }
    }

    /// The same values as JSON string literals, quotes included.
    struct JSONLiterals: Sendable, MustacheParent {
        var values: [String: String]
        /// Lists of text, each written as a JSON array.
        var lists: [String: [String]] = [:]

        func child(named name: String) -> Any? {
            if let list = lists[name] { return "[" + list.map(Self.literal).joined(separator: ", ") + "]" }
            return values[name].map(Self.literal)
        }

        static func literal(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                // `<` too, so that a feed is safe to inline in a `<script>`.
                case "<": result += "\\u003c"
                case _ where scalar.value < 0x20 || scalar == "\u{2028}" || scalar == "\u{2029}":
                    let hex = String(scalar.value, radix: 16)
                    result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
    }

    var title: String
    /// The feed's own id: the site's address, or a URN made of its title without `base_url`.
    var id: String
    /// `base_url` is set: every address is absolute.
    var isAbsolute: Bool
    /// The site's address, absolute with `base_url`, else `index.html` (resolved against the feed).
    var home: String
    var atomURL: String
    var jsonFeedURL: String
    var updated: String
    var entries: [Entry]
    /// The site's language: the feeds' `xml:lang` and `language`.
    var language: SiteLanguage

    func child(named name: String) -> Any? {
        switch name {
        case "lang": language.tag
        case "t": ThemeStrings(language: language)
        case "title": title
        case "id": id
        case "isAbsolute": isAbsolute
        case "home": home
        case "atomURL": atomURL
        case "jsonFeedURL": jsonFeedURL
        case "updated": updated
        case "entries": entries
        case "json":
            JSONLiterals(values: [
                "title": title, "home": home, "jsonFeedURL": jsonFeedURL, "id": id, "language": language.tag,
            ])
        default: nil
        }
    }

    /// The newest photos first: by the feed's dates, then (for photos without one) later in the
    /// feed first. Without a date at all, an entry is dated 1970-01-01: a build must not write
    /// its own clock into the site (the same inputs give the same bytes).
    init(gallery: Gallery, slugs: [Int: String], language: SiteLanguage = .english) {
        self.language = language
        let base = gallery.baseDirectory
        func address(_ path: String) -> String { (base ?? "") + path }
        // The newest entries' keys, kept in order as the items go by: not copies of the items (at
        // 100,000 photos, 88 MB of the build's peak), nor every item's key sorted (7 MB of it, when
        // the feeds are made at the end of the render).
        typealias Key = (date: Date, index: Int, position: Int)
        func isNewer(_ a: Key, than b: Key) -> Bool { a.date != b.date ? a.date > b.date : a.index > b.index }
        var keys: [Key] = []
        keys.reserveCapacity(Self.entryLimit + 1)
        // A photo behind a content warning is in neither feed: a reader would show it without it.
        for (position, item) in gallery.items.enumerated()
        where item.image != nil && slugs[item.photo.index] != nil && item.photo.contentWarning == nil {
            let key = (date: item.photo.date ?? .distantPast, index: item.photo.index, position: position)
            if keys.count == Self.entryLimit, let oldest = keys.last, !isNewer(key, than: oldest) { continue }
            var low = 0
            var high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if isNewer(keys[middle], than: key) { low = middle + 1 } else { high = middle }
            }
            keys.insert(key, at: low)
            if keys.count > Self.entryLimit { keys.removeLast() }
        }
        let newest = keys.map { gallery.items[$0.position] }
        let stamp = Date(timeIntervalSince1970: 0)
        var entries = newest.compactMap { item -> Entry? in
            guard let image = item.image, let slug = slugs[item.photo.index],
                let rendition = PhotoPageViewModel.cardRendition(of: image)
            else { return nil }
            let page = address(PhotoSlugs.pagePath(of: slug))
            let said = item.said
            let mp4 = image.videos.filter { $0.format == .mp4 }.max { $0.width * $0.height < $1.width * $1.height }
            return Entry(
                id: base == nil ? "urn:gallerygen:photo:\(slug)" : page,
                title: item.displayTitle(in: language),
                url: page, updated: Self.timestamp(item.photo.date ?? stamp),
                image: address(rendition.path), imageType: rendition.format.mimeType,
                imageWidth: rendition.width, imageHeight: rendition.height, alt: item.altText(in: language),
                summary: said.description?.escapableInTemplates, tags: said.keywords.map(\.escapableInTemplates),
                author: said.creator?.escapableInTemplates, rights: said.rights?.escapableInTemplates,
                video: mp4.map { address($0.path) }, videoBytes: mp4?.byteCount ?? 0)
        }
        if !entries.isEmpty { entries[entries.count - 1].isLast = true }
        self.title = gallery.title.escapableInTemplates
        self.id =
            base.map { $0 + "index.html" } ?? "urn:gallerygen:site:\(PagePlan.slugify(gallery.title, empty: "gallery"))"
        self.isAbsolute = base != nil
        self.home = address("index.html")
        self.atomURL = address(Self.atomPath)
        self.jsonFeedURL = address(Self.jsonFeedPath)
        self.updated = Self.timestamp(newest.compactMap(\.photo.date).max() ?? stamp)
        self.entries = entries
    }

    /// RFC 3339 in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }
}

/// `sitemap.xml` with the image and video extensions: every grid page and photo page, each photo
/// page with its image, and a clip's with its video. Written only with `base_url` (a sitemap's
/// addresses are absolute).
enum Sitemap {
    static let path = "sitemap.xml"

    struct PhotoPage {
        var page: String
        /// The photo's, or the clip's poster's, card image; nil for a photo behind a content
        /// warning.
        var image: String?
        var clip: Clip?
    }

    /// What the video extension says of a clip: its MP4, length, title and description (escapable
    /// text, as the pages have it).
    struct Clip {
        var file: String
        var seconds: Int
        var title: String
        var description: String
    }

    /// - Parameter base: the site's address, ending in `/` (``Gallery/baseDirectory``).
    static func xml(base: String, gridPages: [String], photoPages: [PhotoPage]) -> String {
        // The video extension is declared only where a clip uses it.
        let video =
            photoPages.contains { $0.clip != nil }
            ? " xmlns:video=\"http://www.google.com/schemas/sitemap-video/1.1\"" : ""
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" \
            xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"\(video)>

            """
        for page in gridPages {
            xml += "<url><loc>\(escaped(base + page))</loc></url>\n"
        }
        for entry in photoPages {
            xml += "<url><loc>\(escaped(base + entry.page))</loc>"
            guard let image = entry.image else {
                xml += "</url>\n"
                continue
            }
            xml += "<image:image><image:loc>\(escaped(base + image))</image:loc></image:image>"
            if let clip = entry.clip {
                xml += "<video:video><video:thumbnail_loc>\(escaped(base + image))</video:thumbnail_loc>"
                xml += "<video:title>\(escaped(clip.title))</video:title>"
                xml += "<video:description>\(escaped(clip.description))</video:description>"
                xml += "<video:content_loc>\(escaped(base + clip.file))</video:content_loc>"
                xml += "<video:duration>\(max(1, clip.seconds))</video:duration></video:video>"
            }
            xml += "</url>\n"
        }
        return xml + "</urlset>\n"
    }

    /// By scalar, not by Character: a mark or a prepended character joins `<` into one
    /// Character that is not `<`, and would go out raw.
    static func escaped(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "'": result.append(contentsOf: "&apos;".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }
}
