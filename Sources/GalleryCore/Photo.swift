package import Foundation

/// One entry of the feed: what to show and where its image comes from.
package struct Photo: Sendable, Hashable {
    /// Position in the feed, from 0; the order of the gallery.
    package var index: Int
    /// The feed's own id for the entry, or its position when it has none.
    package var id: String
    /// Untrusted text from the feed: always escaped on output.
    package var title: String
    /// Absolute http(s) or file URL of the full-size image.
    package var source: URL
    /// The album the photo is in, outermost first: a folder feed's folders (`["2019", "Iceland"]`),
    /// a feed's album as one name; empty when it is in none.
    package var albumPath: [String]
    /// The album's path as one name (`2019 / Iceland`), nil when the photo is in none. Set, it
    /// is an album of that one name.
    package var album: String? {
        get { albumPath.isEmpty ? nil : albumPath.joined(separator: " / ") }
        set { albumPath = Self.cleanedAlbumPath(newValue.map { [$0] } ?? []) }
    }

    /// A feed's album name as a path: ` / ` (a slash with a space each side) separates an album
    /// from the album it is in (`Garden / Flowers`), as a folder feed names its folders.
    package static func albumPath(of name: String) -> [String] {
        name.components(separatedBy: " / ")
    }

    /// Each name of an album path as pages show it: cleaned, and "Untitled album" for a name that
    /// shows nothing (it would be a link without text).
    package static func cleanedAlbumPath(_ path: [String]) -> [String] {
        path.map { name in
            let cleaned = name.cleanedLine()
            return cleaned.isVisiblyEmpty ? untitledAlbum : cleaned
        }
    }
    /// A page about the photo (http or https only; anything else is dropped by the feed reader).
    package var link: URL?
    /// When the photo was published, as the feed says (JSON Feed `date_published`, iTunes
    /// `releaseDate`, a mapped `date`); nil when it does not say.
    package var date: Date?
    /// The feed named the entry (`id` is then the feed's); false when `id` is only its position.
    package var hasFeedID: Bool
    /// The title was made from the file's name (a folder feed): any title the photo carries wins.
    package var titleIsFileName = false
    /// What the feed or a sidecar file says about the photo; it wins over what the photo says
    /// about itself (``ProcessedImage/metadata``), field by field.
    package var metadata: PhotoMetadata
    /// What the feed or a sidecar says (``metadata``), with the feed's own title unless it was
    /// made from the file's name: what wins over what the photo says about itself.
    package var stated: PhotoMetadata {
        var stated = metadata
        if stated.title == nil, !titleIsFileName, !title.isEmpty { stated.title = title }
        return stated
    }

    /// A Markdown sidecar's text (`IMG_0001.md`): the caption, rendered as Markdown; it wins over
    /// every plain description.
    package var captionMarkdown: String?

    /// A Live Photo's motion: the clip beside the still (`IMG_0001.MOV` beside `IMG_0001.HEIC`),
    /// played in the viewer; nil for any other photo.
    package var motion: URL?

    /// Set, the photo is shown behind a content warning: blurred, with these words, until the
    /// visitor asks to see it; its title, caption and alt text are behind the warning too. Empty
    /// for a post marked sensitive without words (pages then say "Sensitive content"). Nil for
    /// every other photo.
    package var contentWarning: String? {
        didSet { contentWarning = contentWarning.map(Self.cleanedWarning) }
    }

    /// A warning as pages show it: one line, at most ``PhotoMetadata/lineLimit`` characters.
    package static func cleanedWarning(_ text: String) -> String {
        let line = text.cleanedLine().trimmingWhitespace()
        return line.isVisiblyEmpty ? "" : PhotoMetadata.shortened(line, to: PhotoMetadata.lineLimit)
    }

    /// The name given to an album whose own name shows nothing (spaces, zero-width characters).
    package static let untitledAlbum = "Untitled album"

    package init(
        index: Int, id: String, title: String, source: URL, album: String? = nil, albumPath: [String]? = nil,
        link: URL? = nil, date: Date? = nil, hasFeedID: Bool = true, metadata: PhotoMetadata = PhotoMetadata(),
        captionMarkdown: String? = nil, contentWarning: String? = nil
    ) {
        self.index = index
        self.id = id.cleanedLine()
        self.title = title.cleanedLine()
        self.source = source
        self.albumPath = Self.cleanedAlbumPath(albumPath ?? album.map { [$0] } ?? [])
        self.link = link
        self.date = date
        self.hasFeedID = hasFeedID
        self.metadata = metadata.bounded()
        self.captionMarkdown = captionMarkdown.flatMap { text in
            let bounded = String(text.prefix(PhotoMetadata.textLimit))
            return bounded.isVisiblyEmpty ? nil : bounded
        }
        self.contentWarning = contentWarning.map(Self.cleanedWarning)
    }
}

/// A feed entry that could not become a photo, reported by its position.
package struct FeedIssue: Error, Sendable, Hashable, CustomStringConvertible {
    package var index: Int
    package var message: String

    package init(index: Int, message: String) {
        self.index = index
        self.message = message
    }

    package var description: String { "feed entry \(index): \(message)" }
}

/// A feed, read: its photos in order and the entries that were skipped.
package struct FeedDocument: Sendable {
    package var title: String?
    package var photos: [Photo]
    /// What album folders say of themselves (their `index.md`), by album path.
    package var albums: [[String]: AlbumNote]
    package var skipped: [FeedIssue]
    /// What was wrong with what was read beside the photos (a sidecar), each naming its file.
    package var warnings: [String]
    /// Where the page after this one is, when the page said so in its body (a JSON Feed's
    /// `next_url`, an Atom link, the field `feed.paging.next` names).
    package var next: URL?
    /// How many entries the page had, read or skipped.
    package var entryCount = 0
    /// The ETags a listing (an S3 bucket's, a WebDAV folder's) gave its images, by image URL: a
    /// cached copy with the listed ETag needs no request.
    package var listedETags: [URL: String] = [:]
    /// A bucket's listing (a page of keys in byte order): the whole feed is put in a folder
    /// feed's order once read, each album's photos before its sub-albums.
    package var isListing = false
    /// Posts of a service left out by what the owner chose to publish (``PostVisibility``), by
    /// why: `followers-only`, `direct`, `unlisted`, `sensitive`.
    package var postsLeftOut: [String: Int] = [:]
    /// What a folder feed was read from: each folder it listed and each entry of them, with its
    /// stamp as the walk saw it, before it read anything. While every one keeps its stamp, the
    /// folder reads the same (the up-to-date check, docs/guarantees.md).
    package var inputs: [SourceInput] = []
    /// A folder feed's photos' stamps as the walk took them, by photo index: the load looks up a
    /// file's hash by it without a stat(2) of its own (a stamp that is not the file's finds no
    /// hash, and the file is read).
    package var photoStamps: [SourceStamp?] = []

    package init(
        title: String? = nil, photos: [Photo], albums: [[String]: AlbumNote] = [:], skipped: [FeedIssue] = [],
        warnings: [String] = []
    ) {
        self.title = title.map { $0.cleanedLine() }
        self.photos = photos
        self.albums = albums
        self.skipped = skipped
        self.warnings = warnings
    }
}

extension FeedDocument {
    /// Makes the photos of one album share one array for its path, not a copy each (a folder
    /// feed's or a feed's album: 48 bytes a photo, held by every build stage after the feed).
    package mutating func shareAlbumPaths() {
        var known: Set<[String]> = []
        for index in photos.indices where !photos[index].albumPath.isEmpty {
            let (inserted, shared) = known.insert(photos[index].albumPath)
            if !inserted { photos[index].albumPath = shared }
        }
    }
}

/// What an album folder's `index.md` says of the album: every field optional.
package struct AlbumNote: Sendable, Hashable, Encodable {
    /// Shown instead of the folder's name.
    package var title: String?
    /// The text above the album's photos, Markdown.
    package var descriptionMarkdown: String?
    /// The file name, in the album's folder or below it, of the photo that stands for the album.
    package var cover: String?
    /// The album's own order, instead of the site's `sort:`.
    package var order: PhotoOrder?

    package init(
        title: String? = nil, descriptionMarkdown: String? = nil, cover: String? = nil, order: PhotoOrder? = nil
    ) {
        self.title = title.map { String($0.cleanedLine().prefix(PhotoMetadata.lineLimit)) }.flatMap {
            $0.isVisiblyEmpty ? nil : $0
        }
        self.descriptionMarkdown = descriptionMarkdown.flatMap { text in
            let bounded = String(text.prefix(PhotoMetadata.textLimit))
            return bounded.isVisiblyEmpty ? nil : bounded
        }
        self.cover = cover.map { $0.cleanedLine() }.flatMap { $0.isEmpty ? nil : $0 }
        self.order = order
    }
}
