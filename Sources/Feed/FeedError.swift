package import GalleryCore

/// A feed that cannot be read at all (as opposed to one bad entry, which is a ``FeedIssue``).
package struct FeedError: LocatedError {
    package enum Code: String, Sendable {
        case invalidJSON
        case invalidXML
        case unknownShape
        case wrongShape
        case unreadableFolder
    }

    package var code: Code
    /// What is wrong and what to do about it.
    package var message: String
    /// The spot in the feed, when there is one.
    package var location: SourceLocation?
    /// The error underneath (the file system's, for a folder that cannot be listed).
    package var underlying: (any Error & Sendable)?

    package init(
        _ code: Code, _ message: String, location: SourceLocation? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.underlying = underlying
    }
}
