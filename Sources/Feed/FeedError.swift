import GalleryCore

/// A feed that cannot be read at all (as opposed to one bad entry, which is a ``FeedIssue``).
public struct FeedError: LocatedError {
    public enum Code: String, Sendable {
        case invalidJSON
        case unknownShape
        case wrongShape
        case unreadableFolder
    }

    public var code: Code
    /// What is wrong and what to do about it.
    public var message: String
    /// The spot in the feed, when there is one.
    public var location: SourceLocation?
    /// The error underneath (the file system's, for a folder that cannot be listed).
    public var underlying: (any Error & Sendable)?

    public init(
        _ code: Code, _ message: String, location: SourceLocation? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.location = location
        self.underlying = underlying
    }
}
