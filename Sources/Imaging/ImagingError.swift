import GalleryCore

/// Why an image could not be turned into renditions: a code, what failed (libvips' own words are
/// part of the message, as libvips gives no error value), and the error underneath when another
/// library's error caused it (the file system's, when a rendition cannot be written).
package struct ImagingError: Error, Sendable, CustomStringConvertible {
    package enum Code: String, Sendable {
        case initialisation
        case unsupportedFormat
        case tooManyPixels
        case decode
        case encode
        case write
    }

    package var code: Code
    package var message: String
    package var underlying: (any Error & Sendable)?

    package init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The message with the underlying error's words.
    package var detail: String { underlying.map { "\(message) (\(describing($0)))" } ?? message }

    package var description: String { detail }
}
