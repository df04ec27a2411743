import GalleryCore

/// Why an image or feed could not be loaded; the message names the URL and what to do.
public struct LoadingError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
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
        case cancelled
        case unsupportedScheme
        /// The server went silent: no answer, or a body that stalled.
        case timedOut
        /// The server answered, but too slowly: under the minimum rate, or past the deadline. Not
        /// retried (another attempt would take as long), and not held against the host.
        case tooSlow
        /// Not asked: the host failed too many times in a row (``HostHealth``).
        case hostDown
    }

    public var code: Code
    public var url: String
    public var message: String
    /// The HTTP status, for `.httpStatus`.
    public var status: Int?
    /// The server's Retry-After, verbatim.
    var retryAfter: String?

    public init(_ code: Code, url: String, _ message: String, status: Int? = nil) {
        self.code = code
        self.url = url
        self.message = message
        self.status = status
    }

    public var description: String { "\(url): \(message)" }
}
