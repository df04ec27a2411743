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

        init(photo: Photo, image: ProcessedImage?, failure: String?, sourceName: String) {
            self.photo = photo
            self.image = image
            self.failure = failure
            self.sourceName = sourceName
        }
    }

    private var storage: Storage

    package init(photo: Photo, image: ProcessedImage?, failure: String? = nil, sourceName: String? = nil) {
        storage = Storage(
            photo: photo, image: image, failure: failure, sourceName: sourceName ?? photo.source.absoluteString)
    }

    package var photo: Photo {
        get { storage.photo }
        set { storage = Storage(photo: newValue, image: image, failure: failure, sourceName: sourceName) }
    }

    package var image: ProcessedImage? {
        get { storage.image }
        set { storage = Storage(photo: photo, image: newValue, failure: failure, sourceName: sourceName) }
    }

    package var failure: String? {
        get { storage.failure }
        set { storage = Storage(photo: photo, image: image, failure: newValue, sourceName: sourceName) }
    }

    /// The photo's source as the site names it: a local file relative to the site folder, so
    /// that a photo page's address does not depend on where the site is checked out.
    package var sourceName: String {
        get { storage.sourceName }
        set { storage = Storage(photo: photo, image: image, failure: failure, sourceName: newValue) }
    }
}

extension GalleryItem: CustomReflectable {
    /// The stored values, as a struct's mirror would show them (PageFingerprintTests reads them).
    package var customMirror: Mirror { Mirror(self, children: Mirror(reflecting: storage).children) }
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
