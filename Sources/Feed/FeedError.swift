package import GalleryCore

/// A feed that cannot be read at all (as opposed to one bad entry, which is a ``FeedIssue``);
/// the error underneath is the file system's, for a folder that cannot be listed.
package typealias FeedError = StageError<FeedErrorCode>

package enum FeedErrorCode: String, Sendable {
    case invalidJSON
    case invalidXML
    case unknownShape
    case wrongShape
    case unreadableFolder
}
