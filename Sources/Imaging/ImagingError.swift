package import GalleryCore

/// Why an image could not be turned into renditions: what failed (libvips' own words are part of
/// the message, as libvips gives no error value), and the error underneath when another library's
/// error caused it (the file system's, when a rendition cannot be written).
package typealias ImagingError = StageError<ImagingErrorCode>

package enum ImagingErrorCode: String, Sendable {
    case initialisation
    case unsupportedFormat
    case tooManyPixels
    case decode
    case encode
    case write
}
