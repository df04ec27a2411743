import Foundation
import GalleryCore
import Mustache

/// The values of a photo's own page (`photo-page.mustache`): the photo large, its caption and
/// camera details, its neighbours, the grid page that holds it, and the Open Graph card.
struct PhotoPageViewModel: Sendable, MustacheParent, Encodable {
    /// A link with a label: an album, a neighbour, the grid page.
    struct Link: Sendable, MustacheParent, Encodable {
        var href: String
        var title: String

        func child(named name: String) -> Any? {
            switch name {
            case "href": href
            case "title": title
            default: nil
            }
        }
    }

    /// A keyword, linked to its page when there are keyword pages. `{{.}}` is its title, as a
    /// theme written when keywords were plain text reads it.
    struct Keyword: Sendable, MustacheParent, Encodable, CustomStringConvertible {
        var title: String
        var href: String?

        var description: String { title }

        func child(named name: String) -> Any? {
            switch name {
            case "title": title
            case "href": href
            default: nil
            }
        }
    }

    /// Where a photo was taken, as much as `location:` shows: rounded coordinates and their page on
    /// OpenStreetMap.
    struct Place: Sendable, MustacheParent, Encodable {
        var latitude: String
        var longitude: String
        /// `59.9° N, 10.8° E`.
        var label: String
        var href: String

        init?(_ point: GeoPoint?, precision: LocationPrecision) {
            guard let point, let places = precision.places else { return nil }
            let rounded = point.rounded(to: places)
            func text(_ value: Double) -> String { String(format: "%.\(places)f", value) }
            latitude = text(rounded.latitude)
            longitude = text(rounded.longitude)
            label =
                "\(text(abs(rounded.latitude)))° \(rounded.latitude < 0 ? "S" : "N"), "
                + "\(text(abs(rounded.longitude)))° \(rounded.longitude < 0 ? "W" : "E")"
            // A town's zoom for a town's precision; the street's for a metre's.
            let zoom = places <= 1 ? 11 : 17
            href =
                "https://www.openstreetmap.org/?mlat=\(latitude)&mlon=\(longitude)#map=\(zoom)/\(latitude)/\(longitude)"
        }

        func child(named name: String) -> Any? {
            switch name {
            case "latitude": latitude
            case "longitude": longitude
            case "label": label
            case "href": href
            default: nil
            }
        }
    }

    /// The Open Graph and Twitter card values; only with `base_url` (they must be absolute).
    struct Card: Sendable, MustacheParent, Encodable {
        var url: String
        var image: String
        var imageType: String
        var imageWidth: Int
        var imageHeight: Int
        /// The image's alt text; on a photo page, the page's own.
        var alt: String?
        /// A clip's largest MP4 (`og:video`), absolute.
        var video: String?
        var videoWidth = 0
        var videoHeight = 0

        func child(named name: String) -> Any? {
            switch name {
            case "url": url
            case "image": image
            case "imageType": imageType
            case "imageWidth": imageWidth
            case "imageHeight": imageHeight
            case "alt": alt
            case "video": video
            case "videoWidth": videoWidth
            case "videoHeight": videoHeight
            default: nil
            }
        }

        /// The card of the page at `path` (relative to the output folder) showing `item`'s photo;
        /// nil without `base_url` (a card's addresses are absolute) or an image.
        init?(path: String, item: GalleryItem?, base: String?, alt: String? = nil) {
            guard let base, let image = item?.image, let rendition = PhotoPageViewModel.cardRendition(of: image) else {
                return nil
            }
            url = (base + path).escapableInTemplates
            self.image = (base + rendition.path).escapableInTemplates
            imageType = rendition.format.mimeType
            imageWidth = rendition.width
            imageHeight = rendition.height
            self.alt = alt
            if let mp4 = ClipViewModel(image: image, prefix: "")?.largestMP4 {
                video = (base + mp4.src).escapableInTemplates
                videoWidth = mp4.width
                videoHeight = mp4.height
            }
        }
    }

    /// What the photo says, as its page shows it: every value escapable, the caption HTML.
    struct Said: Sendable, MustacheParent, Encodable {
        /// The Markdown caption's HTML, else the description's paragraphs, escaped.
        var caption: String?
        /// `1 May 2024, 14:32`, and the machine-readable form for `<time datetime>`.
        var taken: String?
        var takenISO: String?
        var keywords: [Keyword]
        var creator: String?
        var rights: String?
        var licence: Link?
        /// 1 to 5 stars, for a theme that shows them.
        var rating: Int?
        /// Where it was taken, rounded as `location:` says, linked on OpenStreetMap; nil when off.
        var place: Place?

        /// - Parameters:
        ///   - keywordPages: each keyword's page (lower-cased keyword: its path).
        ///   - location: how much of the place is shown.
        ///   - behindWarning: with what a content warning keeps back, for a page that shows it
        ///     behind its warning.
        init(
            _ item: GalleryItem, keywordPages: [String: String] = [:], location: LocationPrecision = .off,
            language: SiteLanguage = .english, behindWarning: Bool = false
        ) {
            let said = behindWarning ? item.saidBehindWarning : item.said
            caption = item.captionHTML ?? said.description.map(Self.paragraphs)
            taken = said.taken.map { Self.readable($0, in: language).escapableInTemplates }
            takenISO = said.taken.map { $0.local + ($0.offset ?? "") }
            keywords = said.keywords.map { keyword in
                Keyword(title: keyword.escapableInTemplates, href: keywordPages[keyword.lowercased()])
            }
            creator = said.creator?.escapableInTemplates
            rights = said.rights?.escapableInTemplates
            licence = said.licence.map { url in
                Link(
                    href: url.escapableInTemplates,
                    title: (Self.licenceName(of: url) ?? language.text("licence")).escapableInTemplates)
            }
            rating = said.rating
            place = Place(said.location, precision: location)
        }

        var isEmpty: Bool {
            caption == nil && taken == nil && keywords.isEmpty && creator == nil && rights == nil && licence == nil
                && place == nil
        }

        func child(named name: String) -> Any? {
            switch name {
            // False, not nil, when there is none: nil would let the template find the tile's
            // caption (the title) in the page around it and show the title twice.
            case "caption": caption ?? false
            case "taken": taken
            case "takenISO": takenISO
            case "keywords": keywords.isEmpty ? nil : keywords
            case "creator": creator
            case "rights": rights
            case "licence": licence
            case "rating": rating
            case "place": place
            case "hasKeywords": !keywords.isEmpty
            case "hasCredit": creator != nil || rights != nil || licence != nil
            default: nil
            }
        }

        /// Plain text as HTML paragraphs: escaped, a blank line between paragraphs, a line
        /// break within one.
        static func paragraphs(_ text: String) -> String {
            text.components(separatedBy: "\n\n").map { paragraph in
                "<p>"
                    + paragraph.split(separator: "\n").map { Sitemap.escaped(String($0)) }
                    .joined(separator: "<br>\n") + "</p>"
            }.joined(separator: "\n")
        }

        /// `1 May 2024, 14:32` in English: the camera's own clock, as it read where the photo was
        /// taken, written as `language` writes dates.
        static func readable(_ time: CaptureTime, in language: SiteLanguage = .english) -> String {
            let numbers = time.local.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).compactMap {
                Int($0)
            }
            guard numbers.count == 6 || numbers.count == 3, (1...12).contains(numbers[1]) else { return time.day }
            // A time in UTC (a clip's, with no photo beside it to say the zone) says so.
            let clock = String(time.local.dropFirst(11).prefix(5)) + (time.offset == "Z" ? " UTC" : "")
            return language.date(
                year: numbers[0], month: numbers[1], day: numbers[2], time: time.hasTime ? clock : nil)
        }

        /// `CC BY-SA 4.0` for a Creative Commons licence's address, `GPL-2.0` for a GNU one;
        /// nil for any other.
        static func licenceName(of url: String) -> String? {
            let parts = url.lowercased().split(separator: "/")
            guard let host = parts.dropFirst().first else { return nil }
            // gnu.org/licenses/old-licenses/gpl-2.0.html reads `GPL-2.0`.
            if host.hasSuffix("gnu.org"), parts.contains("licenses"), let page = parts.last,
                page.hasSuffix(".html"), page.count <= 30
            {
                return page.dropLast(5).uppercased()
            }
            guard host.hasSuffix("creativecommons.org") else { return nil }
            if let index = parts.firstIndex(of: "licenses"), index + 1 < parts.count {
                let kind = parts[index + 1].uppercased()
                let version = index + 2 < parts.count ? " " + parts[index + 2] : ""
                return "CC \(kind)\(version)"
            }
            if parts.contains("publicdomain") { return "CC0 1.0" }
            return nil
        }
    }

    /// schema.org's `ImageObject` for the photo, as JSON safe inside `<script>`: what search
    /// engines read of its caption, creator, licence and date.
    struct ImageObject: Encodable {
        struct Person: Encodable {
            var type = "Person"
            var name: String

            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case name
            }
        }

        var context = "https://schema.org"
        var type = "ImageObject"
        var contentUrl: String
        var width: Int
        var height: Int
        var name: String
        var caption: String?
        var dateCreated: String?
        var keywords: String?
        var creator: Person?
        var copyrightNotice: String?
        var license: String?
        var acquireLicensePage: String?
        var contentLocation: Location?

        /// schema.org's `Place` with its `GeoCoordinates`, as rounded as the page shows them.
        struct Location: Encodable {
            struct Coordinates: Encodable {
                var type = "GeoCoordinates"
                var latitude: Double
                var longitude: Double

                enum CodingKeys: String, CodingKey {
                    case type = "@type"
                    case latitude, longitude
                }
            }

            var type = "Place"
            var geo: Coordinates

            enum CodingKeys: String, CodingKey {
                case type = "@type"
                case geo
            }
        }

        enum CodingKeys: String, CodingKey {
            case context = "@context"
            case type = "@type"
            case contentUrl, width, height, name, caption, dateCreated, keywords, creator
            case copyrightNotice, license, acquireLicensePage, contentLocation
        }

        /// The page's JSON-LD, or nil without an image. `contentUrl` is absolute with `base_url`,
        /// else relative to the page.
        static func json(
            for item: GalleryItem, contentUrl: String?, width: Int, height: Int, location: LocationPrecision = .off,
            language: SiteLanguage = .english
        ) -> String? {
            guard let contentUrl else { return nil }
            let said = item.said
            let object = ImageObject(
                contentUrl: contentUrl, width: width, height: height,
                name: said.title ?? language.text("photo_number", ["number": language.number(item.photo.index + 1)]),
                caption: said.description, dateCreated: said.taken.map { $0.local + ($0.offset ?? "") },
                keywords: said.keywords.isEmpty ? nil : said.keywords.joined(separator: ", "),
                creator: said.creator.map { Person(name: $0) }, copyrightNotice: said.rights, license: said.licence,
                acquireLicensePage: said.licence,
                contentLocation: location.places.flatMap { places in
                    said.location.map { point in
                        let rounded = point.rounded(to: places)
                        return Location(geo: .init(latitude: rounded.latitude, longitude: rounded.longitude))
                    }
                })
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(object) else { return nil }
            // Nothing in it may end the script or open markup, and no quote of the text stands
            // raw: `<`, `>`, `&`, `'` and an escaped `"` become \u escapes, scalar by scalar (a
            // Character may join one to a mark).
            var json = String.UnicodeScalarView()
            var escaping = false
            for scalar in String(decoding: data, as: UTF8.self).unicodeScalars {
                if escaping {
                    escaping = false
                    if scalar == "\"" {
                        json.append(contentsOf: "u0022".unicodeScalars)
                        continue
                    }
                    json.append(scalar)
                    continue
                }
                switch scalar {
                case "\\":
                    escaping = true
                    json.append(scalar)
                case "<", ">", "&", "'":
                    json.append(contentsOf: "\\u00".unicodeScalars)
                    json.append(contentsOf: String(scalar.value, radix: 16).unicodeScalars)
                default:
                    json.append(scalar)
                }
            }
            return String(json)
        }
    }

    var site: PageViewModel.Site
    var title: String
    /// The photo's title (``GalleryItem/displayTitle``), as the page's title, its card and the
    /// neighbours' links say it: for a photo behind a content warning, `Photo N`.
    var heading: String
    /// The photo's own title, where the page shows the photo: for a photo behind a content
    /// warning, the title behind it.
    var photoTitle: String
    var said: Said
    var photo: PhotoViewModel
    /// The largest rendition's size: the image's box.
    var width: Int
    var height: Int
    /// The photo's album (the last of ``albumTrail``).
    var album: Link?
    /// The albums the photo is in, outermost first.
    var albumTrail: [Link] = []
    var previous: Link?
    var next: Link?
    var grid: Link
    var camera: String?
    var card: Card?
    var canonical: String?
    /// ``ImageObject``'s JSON.
    var structuredData: String?
    /// Its download button's file (`downloads:`).
    var download: DownloadLink?

    /// A file to download, as a button shows it: `Download original (JPEG, 4.2 MB)`.
    struct DownloadLink: Sendable, MustacheParent, Encodable {
        var href: String
        var fileName: String
        var label: String
        var details: String

        /// `prefix` leads from the page to the output folder (`../` from a photo page).
        init(_ download: Download, label: String, prefix: String, language: SiteLanguage = .english) {
            href = prefix + download.path
            fileName = download.fileName.escapableInTemplates
            self.label = label.escapableInTemplates
            details =
                language.list(
                    [download.kind] + (download.photoCount.map { [language.text("photo_count", count: $0)] } ?? [])
                        + [language.byteSize(download.byteCount)]
                ).escapableInTemplates
        }

        func child(named name: String) -> Any? {
            switch name {
            case "href": href
            case "fileName": fileName
            case "label": label
            case "details": details
            default: nil
            }
        }
    }

    func child(named name: String) -> Any? {
        switch name {
        case "site": site
        case "t": site.strings
        case "title": title
        case "heading": heading
        case "photoTitle": photoTitle
        case "said": said.isEmpty ? nil : said
        case "photo": photo
        case "image": photo.image
        case "width": width
        case "height": height
        // The text either side of the date and of the place (`Taken {date}`), which are elements.
        case "takenBefore": site.language.around("taken", "date").before
        case "takenAfter": site.language.around("taken", "date").after
        case "placeBefore": site.language.around("taken_at", "place").before
        case "placeAfter": site.language.around("taken_at", "place").after
        case "album": album
        case "albumTrail": albumTrail
        case "hasAlbumTrail": !albumTrail.isEmpty
        case "previous": previous
        case "next": next
        case "grid": grid
        case "camera": camera
        case "card": card
        case "canonical": canonical
        case "structuredData": structuredData
        case "download": download
        default: photo.child(named: name)
        }
    }

    /// The share of the viewport the photo may take: style.css's `.photo-view img` limits.
    static let heightShare = 0.85

    /// The photo is as wide as the window unless the window is wider than the photo's shape
    /// allows at ``heightShare`` of its height: then it is that height.
    static func sizes(width: Int, height: Int) -> String {
        let aspect = Double(width) / Double(max(1, height))
        // Height-bound when 100vw / (0.85 * 100vh) > aspect: a viewport aspect over 0.85 * aspect.
        let ratio = Int((aspect * heightShare * 1000).rounded())
        let viewportWidths = Int((aspect * heightShare * 100).rounded())
        return "(min-aspect-ratio: \(ratio)/1000) \(viewportWidths)vh, 100vw"
    }

    /// The rendition that social cards show: the one closest to 1200 pixels wide, JPEG first
    /// (every crawler reads it), else the fallback format.
    static func cardRendition(of image: ProcessedImage) -> Rendition? {
        let format = image.renditions.contains { $0.format == .jpeg } ? .jpeg : PhotoViewModel.fallbackFormat(of: image)
        return image.renditions.filter { $0.format == format }.min {
            (abs($0.width - 1200), -$0.width) < (abs($1.width - 1200), -$1.width)
        }
    }
}
