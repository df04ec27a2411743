import GalleryCore

/// Recognises image and video files by their first bytes, so that an HTML error page served as an
/// image is caught before it reaches the decoder, and a clip goes to ffmpeg, not to libvips.
package enum ImageSniffer {
    /// The image type the bytes start like, or nil.
    package static func imageType(of prefix: some Collection<UInt8>) -> String? {
        let bytes = Array(prefix.prefix(16))
        if starts(bytes, [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if starts(bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if starts(bytes, Array("GIF8".utf8)) { return "gif" }
        if starts(bytes, Array("RIFF".utf8)), starts(bytes, Array("WEBP".utf8), at: 8) { return "webp" }
        if starts(bytes, Array("ftyp".utf8), at: 4), !MediaKind.isVideoBrand(bytes) { return "heif" }
        if starts(bytes, [0x49, 0x49, 0x2A, 0x00]) || starts(bytes, [0x4D, 0x4D, 0x00, 0x2A]) { return "tiff" }
        return nil
    }

    /// The video container the bytes start like (``MediaKind/videoContainer(of:)``), or nil.
    package static func videoType(of prefix: some Collection<UInt8>) -> String? {
        MediaKind.videoContainer(of: prefix)
    }

    /// An image or a video: what a photo's URL may hold.
    package static func isMedia(_ prefix: some Collection<UInt8>) -> Bool {
        imageType(of: prefix) != nil || videoType(of: prefix) != nil
    }

    private static func starts(_ bytes: [UInt8], _ magic: [UInt8], at offset: Int = 0) -> Bool {
        bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
    }
}
