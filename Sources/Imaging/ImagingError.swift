import GalleryCore

/// Why an image could not be turned into renditions: a code, what failed (libvips' own words are
/// part of the message, as libvips gives no error value), and the error underneath when another
/// library's error caused it (the file system's, when a rendition cannot be written).
public struct ImagingError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case initialisation
        case unsupportedFormat
        case tooManyPixels
        case decode
        case encode
        case write
    }

    public var code: Code
    public var message: String
    public var underlying: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message with the underlying error's words.
    public var detail: String { underlying.map { "\(message) (\(describing($0)))" } ?? message }

    public var description: String { detail }
}
