import GalleryCore

/// What the Rendering stage draws: the site's text and every photo with its outcome.
package struct Gallery: Sendable {
    package var title: String
    /// The intro, already HTML (from the Markdown stage).
    package var introHTML: String
    /// Absolute URL of the published site, for canonical links; nil when unknown.
    package var baseURL: String?
    package var items: [GalleryItem]

    package init(title: String, introHTML: String, baseURL: String?, items: [GalleryItem]) {
        self.title = title
        self.introHTML = introHTML
        self.baseURL = baseURL
        self.items = items
    }

    /// ``baseURL`` ending in `/`, ready for a relative path; nil when there is none.
    var baseDirectory: String? {
        guard let baseURL, !baseURL.isEmpty else { return nil }
        return baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
    }
}

extension Photo {
    /// The title as the pages show it: escapable, and `Photo N` when the feed gave none.
    var displayTitle: String {
        let title = title.escapableInTemplates
        return title.isEmpty ? "Photo \(index + 1)" : title
    }
}

/// One photo and what became of it: its renditions, or why it is a placeholder tile.
package struct GalleryItem: Sendable {
    package var photo: Photo
    package var image: ProcessedImage?
    package var failure: String?
    /// The photo's source as the site names it: a local file relative to the site folder, so
    /// that a photo page's address does not depend on where the site is checked out.
    package var sourceName: String

    package init(photo: Photo, image: ProcessedImage?, failure: String? = nil, sourceName: String? = nil) {
        self.photo = photo
        self.image = image
        self.failure = failure
        self.sourceName = sourceName ?? photo.source.absoluteString
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
