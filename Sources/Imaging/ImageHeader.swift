package import GalleryCore

/// What an image file says about itself before any pixel is decoded.
package struct ImageHeader: Sendable, Hashable {
    /// Upright width: after applying the EXIF orientation.
    package var width: Int
    /// Upright height.
    package var height: Int
    /// EXIF orientation, 1 to 8.
    package var orientation: Int
    /// The libvips loader that reads it, e.g. `jpegload_source`.
    package var loader: String
    /// What the camera recorded, read before any metadata is stripped.
    package var camera: CameraDetails? = nil
    /// What the photographer wrote into it (XMP, IPTC, EXIF), and what was wrong with that.
    package var metadata = PhotoMetadata()
    package var metadataWarnings: [String] = []

    package var pixelCount: Int { width * height }
}
