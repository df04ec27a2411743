/// What an image file says about itself before any pixel is decoded.
public struct ImageHeader: Sendable, Hashable {
    /// Upright width: after applying the EXIF orientation.
    public var width: Int
    /// Upright height.
    public var height: Int
    /// EXIF orientation, 1 to 8.
    public var orientation: Int
    /// The libvips loader that reads it, e.g. `jpegload_source`.
    public var loader: String

    public var pixelCount: Int { width * height }
}
