package import GalleryCore

/// Why an image or feed could not be loaded: a code, the URL (or file), what failed and what to
/// do, and the error underneath (the HTTP client's, the file system's) as a value.
package struct LoadingError: LocatedError {
    package enum Code: String, Sendable {
        case unreadableFile
        case tooLarge
        case notAnImage
        case httpStatus
        case truncated
        case network
        case redirectLoop
        case tooManyRedirects
        case offlineMiss
        case cache
        case unsupportedScheme
        /// The server went silent: no answer, or a body that stalled.
        case timedOut
        /// The server answered, but too slowly: under the minimum rate, or past the deadline. Not
        /// retried (another attempt would take as long), and not held against the host.
        case tooSlow
        /// Not asked: the host failed too many times in a row (``HostHealth``).
        case hostDown
    }

    package var code: Code
    package var url: String
    package var message: String
    /// The HTTP status, for `.httpStatus`.
    package var status: Int?
    /// The server's Retry-After, verbatim.
    var retryAfter: String?
    /// The error underneath, when another library's error caused this one.
    package var underlying: (any Error & Sendable)?

    package init(
        _ code: Code, url: String, _ message: String, status: Int? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.url = url
        self.message = message
        self.status = status
        self.underlying = underlying
    }

    /// A URL or a file, never a spot in one: the URL says where.
    package var location: SourceLocation? { nil }

    /// `URL: message (underlying)`.
    package var description: String { "\(url): \(detail)" }
}
