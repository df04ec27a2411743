package import Foundation
import GalleryCore
import GalleryJSON

/// Turns one feed entry into a ``Photo``: picks the fields of its shape and resolves and vets its
/// URLs. A remote feed may only name http(s) images; only a local feed may name local files, and
/// only inside `localRoots` when they are given.
struct EntryResolver {
    let location: URL
    let allowsFiles: Bool
    /// The folders a local feed's files must be in (symbolic links resolved); nil for anywhere.
    var localRoots: [URL]? = nil

    func photo(from entry: JSONValue, index: Int, shape: FeedShape) -> Result<Photo, FeedIssue> {
        guard entry.isObject else {
            return .failure(FeedIssue(index: index, message: "not an object; skipped"))
        }
        let fields = Fields(entry: entry, shape: shape)
        guard let rawImage = fields.image, !rawImage.trimmingWhitespace().isEmpty else {
            return .failure(FeedIssue(index: index, message: "no image URL (\(fields.imageFieldName)); skipped"))
        }
        let source: URL
        switch imageURL(rawImage) {
        case .success(let url): source = url
        case .failure(let reason):
            return .failure(FeedIssue(index: index, message: "image URL \"\(rawImage)\" \(reason); skipped"))
        }
        let title = (fields.title ?? "").trimmingWhitespace()
        return .success(
            Photo(
                index: index,
                id: fields.id ?? String(index + 1),
                title: title,
                source: source,
                album: fields.album.flatMap { $0.isEmpty ? nil : $0 },
                albumPath: fields.album.flatMap { name in
                    // A list or mapped feed names an album inside another with ` / `; an iTunes
                    // collection's name is one name, whatever it holds.
                    guard !name.isEmpty, shape.namesNestedAlbums else { return nil }
                    return Photo.albumPath(of: name)
                },
                link: fields.link.flatMap(webLink),
                date: fields.date.flatMap(FeedDate.parse),
                hasFeedID: fields.id != nil,
                metadata: fields.metadata,
                contentWarning: fields.contentWarning
            )
        )
    }

    private func imageURL(_ raw: String) -> Result<URL, ImageURLProblem> {
        let trimmed = raw.trimmingWhitespace()
        guard let url = URL(string: trimmed, relativeTo: location)?.absoluteURL, let scheme = url.scheme?.lowercased()
        else { return .failure(.unparsable) }
        switch scheme {
        case "http", "https":
            guard url.host?.isEmpty == false else { return .failure(.unparsable) }
            return .success(url)
        case "file":
            guard allowsFiles else { return .failure(.localFromRemoteFeed) }
            if let localRoots, !localRoots.contains(where: { url.isInside($0) }) { return .failure(.outsideSite) }
            return .success(url)
        default:
            return .failure(.scheme(scheme))
        }
    }

    /// Only http and https links reach a page: `javascript:` and friends are dropped.
    private func webLink(_ raw: String) -> URL? {
        guard let url = URL(string: raw.trimmingWhitespace(), relativeTo: location)?.absoluteURL,
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return url
    }

    enum ImageURLProblem: Error, CustomStringConvertible {
        case unparsable
        case scheme(String)
        case localFromRemoteFeed
        case outsideSite

        var description: String {
            switch self {
            case .unparsable: "is not a valid URL"
            case .scheme(let scheme): "has the scheme \"\(scheme):\"; only http, https and local files are loaded"
            case .localFromRemoteFeed: "names a local file, which a remote feed may not"
            case .outsideSite:
                "names a file outside the site folder and the feed's own, which a local feed may not unless "
                    + "`follow_symlinks: true`"
            }
        }
    }
}

/// The fields of one entry, by shape.
private struct Fields {
    var image: String?
    var imageFieldName: String
    var title: String?
    var album: String?
    var id: String?
    var link: String?
    var date: String?
    /// What the entry says about the photo besides its title (bounded by ``Photo``).
    var metadata = PhotoMetadata()
    /// A list entry's `contentWarning` (a service's sensitive post, when the owner publishes
    /// those behind their warning): text, possibly empty.
    var contentWarning: String?

    init(entry: JSONValue, shape: FeedShape) {
        switch shape {
        case .jsonPlaceholder:
            image = entry["url"]?.text ?? entry["thumbnailUrl"]?.text
            imageFieldName = "url"
            title = entry["title"]?.text
            album = entry["albumId"]?.text
            id = entry["id"]?.text
        case .iTunes(let largestWidth):
            let artwork = entry["artworkUrl100"]?.text ?? entry["artworkUrl60"]?.text ?? entry["artworkUrl30"]?.text
            image = artwork.map { Self.upsizedArtwork($0, width: largestWidth) }
            imageFieldName = "artworkUrl100"
            title = entry["trackName"]?.text ?? entry["collectionName"]?.text
            album = entry["collectionName"]?.text
            id = entry["trackId"]?.text ?? entry["collectionId"]?.text
            link = entry["trackViewUrl"]?.text ?? entry["collectionViewUrl"]?.text
            date = entry["releaseDate"]?.text
            metadata = PhotoMetadata(
                description: entry["longDescription"]?.text ?? entry["shortDescription"]?.text
                    ?? entry["description"]?.text,
                keywords: entry["primaryGenreName"]?.text.map { [$0] } ?? [], creator: entry["artistName"]?.text,
                rights: entry["copyright"]?.text)
        case .jsonFeed:
            let attachments = entry["attachments"]?.arrayValue ?? []
            func attachment(_ type: String) -> String? {
                attachments.first { $0["mime_type"]?.text?.lowercased().hasPrefix(type) == true }?["url"]?.text
            }
            // A clip's post: its video attachment is the item (its `image` is a poster).
            image = attachment("video/") ?? entry["image"]?.text ?? attachment("image/")
            imageFieldName = "image or an image or video attachment"
            title = entry["title"]?.text ?? entry["summary"]?.text
            id = entry["id"]?.text
            link = entry["url"]?.text
            date = entry["date_published"]?.text ?? entry["date_modified"]?.text
            // JSON Feed 1.1's `authors`, 1.0's `author`; a summary that is not the title is the caption.
            let author = entry["authors"]?.arrayValue?.first ?? entry["author"]
            metadata = PhotoMetadata(
                description: entry["content_text"]?.text ?? (entry["title"] != nil ? entry["summary"]?.text : nil),
                keywords: Self.keywords(entry["tags"]), creator: author?["name"]?.text)
        case .list:
            image = entry["imageUrl"]?.text
            imageFieldName = "imageUrl"
            title = entry["title"]?.text
            album = entry["album"]?.text
            id = entry["id"]?.text
            link = entry["link"]?.text
            date = entry["date"]?.text
            metadata = Self.metadata(of: entry) { entry[$0] }
            if case .string(let warning) = entry["contentWarning"] { contentWarning = warning }
        case .mapped(let fields):
            // An entry with a clip is the clip; the image field is then its poster.
            let video = fields.video.flatMap { entry.value(atPath: $0)?.text }.flatMap { $0.isEmpty ? nil : $0 }
            image = video ?? entry.value(atPath: fields.image)?.text
            imageFieldName = fields.image
            title = fields.title.flatMap { entry.value(atPath: $0)?.text }
            album = fields.album.flatMap { entry.value(atPath: $0)?.text }
            id = fields.id.flatMap { entry.value(atPath: $0)?.text }
            link = fields.link.flatMap { entry.value(atPath: $0)?.text }
            date = fields.date.flatMap { entry.value(atPath: $0)?.text }
            let paths: [String: String?] = [
                "description": fields.description, "alt": fields.alt, "keywords": fields.keywords,
                "taken": fields.taken, "creator": fields.creator, "rights": fields.rights, "licence": fields.licence,
            ]
            metadata = Self.metadata(of: entry) { name in
                guard let path = paths[name] ?? nil else { return nil }
                return entry.value(atPath: path)
            }
        }
    }

    /// The metadata fields of an entry, each found by `field` under its name (`description`,
    /// `alt`, `keywords`, `taken`, `creator`, `rights`, `licence`).
    static func metadata(of entry: JSONValue, field: (String) -> JSONValue?) -> PhotoMetadata {
        PhotoMetadata(
            description: field("description")?.text, alt: field("alt")?.text, keywords: keywords(field("keywords")),
            taken: field("taken")?.text.flatMap { CaptureTime.parse($0) }, creator: field("creator")?.text,
            rights: field("rights")?.text, licence: field("licence")?.text)
    }

    /// A list of words, or one text of words split by commas.
    static func keywords(_ value: JSONValue?) -> [String] {
        if let list = value?.arrayValue { return list.compactMap(\.text) }
        return value?.text.map { $0.split(separator: ",").map(String.init) } ?? []
    }

    /// iTunes artwork URLs end in `100x100bb.jpg`; the same path with another size serves that size.
    static func upsizedArtwork(_ url: String, width: Int) -> String {
        guard let range = url.range(of: #"\d+x\d+bb\."#, options: [.regularExpression, .backwards]) else { return url }
        return url.replacingCharacters(in: range, with: "\(width)x\(width)bb.")
    }
}

/// The dates feeds write: RFC 3339 (`2026-11-23T08:00:00Z`, with or without fractions of a
/// second, `Z` or an offset), or a bare day (`2026-11-23`, taken as midnight UTC). Parsed by hand:
/// a formatter per entry cost 1.8 s for 10,000 dated entries.
package enum FeedDate {
    package static func parse(_ text: String) -> Date? {
        let bytes = Array(text.trimmingWhitespace().utf8)
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + digits)] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += digits
            return value
        }
        func skip(_ character: Character) -> Bool {
            guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
            position += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2),
            (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let days = Double(CivilDate.daysFromCivil(year: year, month: month, day: day))
        if position == bytes.count { return Date(timeIntervalSince1970: days * 86_400) }
        guard skip("T") || skip("t"), let hour = number(2), skip(":"), let minute = number(2), skip(":"),
            let second = number(2), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if skip(".") {
            var scale = 0.1
            let start = position
            while let digit = number(1) {
                fraction += Double(digit) * scale
                scale /= 10
            }
            guard position > start else { return nil }
        }
        var offset = 0
        if !(skip("Z") || skip("z")) {
            let sign = skip("+") ? 1 : skip("-") ? -1 : 0
            guard sign != 0, let hours = number(2), skip(":"), let minutes = number(2), hours < 24, minutes < 60
            else { return nil }
            offset = sign * (hours * 3_600 + minutes * 60)
        }
        guard position == bytes.count else { return nil }
        let seconds = Double(hour * 3_600 + minute * 60 + second - offset) + fraction
        return Date(timeIntervalSince1970: days * 86_400 + seconds)
    }
}
