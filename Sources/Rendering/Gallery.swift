import GalleryCore

/// What the Rendering stage draws: the site's text and every photo with its outcome.
public struct Gallery: Sendable {
    public var title: String
    /// The intro, already HTML (from the Markdown stage).
    public var introHTML: String
    /// Absolute URL of the published site, for canonical links; nil when unknown.
    public var baseURL: String?
    public var items: [GalleryItem]

    public init(title: String, introHTML: String, baseURL: String?, items: [GalleryItem]) {
        self.title = title
        self.introHTML = introHTML
        self.baseURL = baseURL
        self.items = items
    }
}

/// One photo and what became of it: its renditions, or why it is a placeholder tile.
public struct GalleryItem: Sendable {
    public var photo: Photo
    public var image: ProcessedImage?
    public var failure: String?

    public init(photo: Photo, image: ProcessedImage?, failure: String? = nil) {
        self.photo = photo
        self.image = image
        self.failure = failure
    }
}

/// A file of the site, ready to write.
public struct RenderedFile: Sendable, Equatable {
    /// Relative to the output folder.
    public var path: String
    public var contents: [UInt8]

    public init(path: String, contents: [UInt8]) {
        self.path = path
        self.contents = contents
    }
}
