import Foundation
package import GalleryCore

/// What the Rendering stage draws: the site's text and every photo with its outcome.
package struct Gallery: Sendable {
    package var title: String
    /// The intro, already HTML (from the Markdown stage).
    package var introHTML: String
    /// Absolute URL of the published site, for canonical links; nil when unknown.
    package var baseURL: String?
    package var items: [GalleryItem]
    /// What albums say of themselves (an album folder's `index.md`), by album path.
    package var albums: [[String]: AlbumDetails]

    package init(
        title: String, introHTML: String, baseURL: String?, items: [GalleryItem],
        albums: [[String]: AlbumDetails] = [:]
    ) {
        self.title = title
        self.introHTML = introHTML
        self.baseURL = baseURL
        self.items = items
        self.albums = albums
    }

    /// ``baseURL`` ending in `/`, ready for a relative path; nil when there is none.
    var baseDirectory: String? {
        guard let baseURL, !baseURL.isEmpty else { return nil }
        return baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }
}

/// An album's own text and choices (``AlbumNote``), its description rendered.
package struct AlbumDetails: Sendable, Hashable, Encodable {
    package var title: String?
    /// The description's HTML (from the Markdown stage).
    package var descriptionHTML: String?
    /// The ``Photo/id`` of the photo that stands for the album.
    package var cover: String?
    package var order: PhotoOrder?
    /// The zip of the album's photos (`downloads:`); nil when there is none.
    package var download: Download?

    package init(
        title: String? = nil, descriptionHTML: String? = nil, cover: String? = nil, order: PhotoOrder? = nil,
        download: Download? = nil
    ) {
        self.title = title
        self.descriptionHTML = descriptionHTML
        self.cover = cover
        self.order = order
        self.download = download
    }
}

extension GalleryItem {
    /// `items` in the order `sort:` asks for; ties, and photos without the value sorted on, in
    /// the feed's order, so that every build orders them the same way.
    package static func ordered(_ items: [GalleryItem], by order: PhotoOrder) -> [GalleryItem] {
        let positions = items.map(\.photo.index)
        let sorted: [Int]
        switch order {
        case .feed:
            // Most often they come in the feed's order already (the site's photos).
            if zip(positions, positions.dropFirst()).allSatisfy({ $0 < $1 }) { return items }
            sorted = items.indices.sorted { positions[$0] < positions[$1] }
        case .name:
            let keys = items.map { $0.photo.source.lastPathComponent.lowercased() }
            sorted = items.indices.sorted { (keys[$0], positions[$0]) < (keys[$1], positions[$1]) }
        case .oldest, .newest:
            let times = items.map { $0.said.taken }
            let newestFirst = order == .newest
            sorted = items.indices.sorted { left, right in
                switch (times[left], times[right]) {
                case (let a?, let b?) where a != b: newestFirst ? b < a : a < b
                case (nil, _?): false
                case (_?, nil): true
                default: positions[left] < positions[right]
                }
            }
        }
        return sorted.map { items[$0] }
    }

    /// What the photo says, each field from the first source that says it: a sidecar file, then
    /// the feed, then the photo itself (XMP, then IPTC, then EXIF). A title made from the file's
    /// name comes last of all.
    ///
    /// A photo behind a content warning (``Photo/contentWarning``) says here neither its title nor
    /// its caption nor its alt text: those are behind the warning, and this is what every page,
    /// feed and card shows. ``saidBehindWarning`` has them.
    package var said: PhotoMetadata {
        var said = saidBehindWarning
        if photo.contentWarning != nil {
            said.title = nil
            said.description = nil
            said.alt = nil
        }
        return said
    }

    /// What the photo says, with what a content warning keeps back: for the part of a tile or a
    /// photo page that shows once the visitor asks to see the photo.
    package var saidBehindWarning: PhotoMetadata {
        var said = photo.stated.filled(from: image?.metadata ?? PhotoMetadata())
        if said.title == nil, !photo.title.isEmpty { said.title = photo.title }
        return said
    }

    /// The title as the pages show it: escapable, and `Photo N` when nothing gave one (or when it
    /// is behind a content warning, unless `behindWarning`).
    func displayTitle(in language: SiteLanguage, behindWarning: Bool = false) -> String {
        let title = ((behindWarning ? saidBehindWarning : said).title ?? "").escapableInTemplates
        return title.isEmpty
            ? language.text("photo_number", ["number": language.number(photo.index + 1)]).escapableInTemplates : title
    }

    /// What a reader who cannot see the photo is told: its alt text, else the first line of its
    /// description, else its title. `behindWarning`: the photo's own, for the image that shows
    /// once the visitor asks to see it.
    func altText(in language: SiteLanguage, behindWarning: Bool = false) -> String {
        let said = behindWarning ? saidBehindWarning : said
        if let alt = said.alt { return alt.escapableInTemplates }
        if let line = said.description?.split(separator: "\n").first {
            let text = PhotoMetadata.shortened(String(line), to: PhotoMetadata.lineLimit)
            return text.escapableInTemplates
        }
        return displayTitle(in: language, behindWarning: behindWarning)
    }

    /// Whether the photo may stand for others (an album's cover, a page's card): it has an image,
    /// and no content warning, which a cover or a card would show it without.
    var canStandForOthers: Bool { image != nil && photo.contentWarning == nil }

    /// The words of the photo's content warning as pages show them (escapable), "Sensitive
    /// content" for a warning without words; nil for a photo without one.
    func warningText(in language: SiteLanguage) -> String? {
        guard let warning = photo.contentWarning else { return nil }
        return (warning.isEmpty ? language.text("sensitive_content") : warning).escapableInTemplates
    }
}

/// One photo and what became of it: its renditions, or why it is a placeholder tile.
///
/// A value, held in one allocation that every copy shares (the albums' lists of their photos,
/// the feeds' newest photos): at 100,000 photos, copies of the 400-byte item were 40 MB of the
/// build's peak. A change makes a new allocation; nothing changes an item after the build made it.
package struct GalleryItem: Sendable {
    private final class Storage: Sendable {
        let photo: Photo
        let image: ProcessedImage?
        let failure: String?
        let sourceName: String
        let captionHTML: String?
        let download: Download?

        init(
            photo: Photo, image: ProcessedImage?, failure: String?, sourceName: String, captionHTML: String?,
            download: Download?
        ) {
            self.photo = photo
            self.image = image
            self.failure = failure
            self.sourceName = sourceName
            self.captionHTML = captionHTML
            self.download = download
        }
    }

    private var storage: Storage

    /// - Parameter captionHTML: the photo's Markdown caption (``Photo/captionMarkdown``) as HTML,
    ///   made by the Markdown stage.
    package init(
        photo: Photo, image: ProcessedImage?, failure: String? = nil, sourceName: String? = nil,
        captionHTML: String? = nil, download: Download? = nil
    ) {
        storage = Storage(
            photo: photo, image: image, failure: failure, sourceName: sourceName ?? photo.source.absoluteString,
            captionHTML: captionHTML, download: download)
    }

    private func with(
        photo: Photo? = nil, image: ProcessedImage?? = nil, failure: String?? = nil, sourceName: String? = nil,
        captionHTML: String?? = nil, download: Download?? = nil
    ) -> Storage {
        Storage(
            photo: photo ?? self.photo, image: image ?? self.image, failure: failure ?? self.failure,
            sourceName: sourceName ?? self.sourceName, captionHTML: captionHTML ?? self.captionHTML,
            download: download ?? self.download)
    }

    package var photo: Photo {
        get { storage.photo }
        set { storage = with(photo: newValue) }
    }

    package var image: ProcessedImage? {
        get { storage.image }
        set { storage = with(image: .some(newValue)) }
    }

    package var failure: String? {
        get { storage.failure }
        set { storage = with(failure: .some(newValue)) }
    }

    /// The photo's source as the site names it: a local file relative to the site folder, so
    /// that a photo page's address does not depend on where the site is checked out.
    package var sourceName: String {
        get { storage.sourceName }
        set { storage = with(sourceName: newValue) }
    }

    /// The Markdown caption as HTML; nil when the photo has none.
    package var captionHTML: String? {
        get { storage.captionHTML }
        set { storage = with(captionHTML: .some(newValue)) }
    }

    /// The file its download button gives (`downloads:`); nil when there is none.
    package var download: Download? {
        get { storage.download }
        set { storage = with(download: .some(newValue)) }
    }
}

extension GalleryItem: CustomReflectable {
    /// The stored values, as a struct's mirror would show them (PageFingerprintTests reads them).
    package var customMirror: Mirror {
        Mirror(self, children: Mirror(reflecting: storage).children, displayStyle: .struct)
    }
}

/// A file of the site, ready to write.
package struct RenderedFile: Sendable, Equatable {
    /// Relative to the output folder.
    package var path: String
    package var contents: [UInt8]
    /// What a grid or photo page was made from; nil for the files rendered every time.
    package var fingerprint: PageFingerprint?

    package init(path: String, contents: [UInt8], fingerprint: PageFingerprint? = nil) {
        self.path = path
        self.contents = contents
        self.fingerprint = fingerprint
    }
}

/// A page left as the previous build wrote it: its fingerprint matched (``SiteRenderer/PageReuse``).
package struct UnchangedPage: Sendable, Equatable {
    package var path: String
    package var fingerprint: PageFingerprint

    package init(path: String, fingerprint: PageFingerprint) {
        self.path = path
        self.fingerprint = fingerprint
    }
}

/// One chunk of the rendering: the files rendered, and the pages not rendered again.
package struct RenderedChunk: Sendable {
    package var files: [RenderedFile]
    package var unchanged: [UnchangedPage]

    init(files: [RenderedFile], unchanged: [UnchangedPage] = []) {
        self.files = files
        self.unchanged = unchanged
    }

    init(_ pages: [PageOutcome]) {
        files = []
        unchanged = []
        for page in pages {
            switch page {
            case .rendered(let file): files.append(file)
            case .unchanged(let path, let fingerprint):
                unchanged.append(UnchangedPage(path: path, fingerprint: fingerprint))
            }
        }
    }
}

/// A grid or photo page, rendered or found unchanged.
enum PageOutcome: Sendable {
    case rendered(RenderedFile)
    case unchanged(String, PageFingerprint)
}

/// An album as its pages show it: what an album's zip holds.
package struct AlbumContents: Sendable {
    /// Its folders, outermost first; with `albums: year`, its year.
    package var path: [String]
    package var title: String
    /// Its own photos, in its order.
    package var items: [GalleryItem]
    /// The albums inside it, by their place in the list.
    package var children: [Int]
}

extension Gallery {
    /// Every album the pages show (none when there is only one), each after the album it is in.
    /// `language` names the album of undated photos (`albums: year`).
    package func albumContents(from source: AlbumSource, language: SiteLanguage = .english) -> [AlbumContents] {
        PagePlan(gallery: self, pageSize: 1 << 40, albums: source, language: language).albums.map { album in
            AlbumContents(path: album.path, title: album.title, items: album.items, children: album.children)
        }
    }
}
