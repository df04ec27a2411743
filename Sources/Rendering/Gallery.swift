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

    package init(path: String, contents: [UInt8]) {
        self.path = path
        self.contents = contents
    }
}
