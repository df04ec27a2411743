import Foundation

/// One entry of the feed: what to show and where its image comes from.
public struct Photo: Sendable, Hashable {
    /// Position in the feed, from 0; the order of the gallery.
    public var index: Int
    /// The feed's own id for the entry, or its position when it has none.
    public var id: String
    /// Untrusted text from the feed: always escaped on output.
    public var title: String
    /// Absolute http(s) or file URL of the full-size image.
    public var source: URL
    public var album: String?
    /// A page about the photo (http or https only; anything else is dropped by the feed reader).
    public var link: URL?

    public init(index: Int, id: String, title: String, source: URL, album: String? = nil, link: URL? = nil) {
        self.index = index
        self.id = id
        self.title = title
        self.source = source
        self.album = album
        self.link = link
    }
}

/// A feed entry that could not become a photo, reported by its position.
public struct FeedIssue: Error, Sendable, Hashable, CustomStringConvertible {
    public var index: Int
    public var message: String

    public init(index: Int, message: String) {
        self.index = index
        self.message = message
    }

    public var description: String { "feed entry \(index): \(message)" }
}

/// A feed, read: its photos in order and the entries that were skipped.
public struct FeedDocument: Sendable {
    public var title: String?
    public var photos: [Photo]
    public var skipped: [FeedIssue]

    public init(title: String? = nil, photos: [Photo], skipped: [FeedIssue] = []) {
        self.title = title
        self.photos = photos
        self.skipped = skipped
    }
}
