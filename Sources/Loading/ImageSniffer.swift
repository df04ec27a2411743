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
        if starts(bytes, Array("ftyp".utf8), at: 4), !isVideoBrand(bytes) { return "heif" }
        if starts(bytes, [0x49, 0x49, 0x2A, 0x00]) || starts(bytes, [0x4D, 0x4D, 0x00, 0x2A]) { return "tiff" }
        return nil
    }

    /// The video container the bytes start like (`mp4` for MP4 and QuickTime, `matroska` for
    /// WebM and MKV, `avi`), or nil.
    package static func videoType(of prefix: some Collection<UInt8>) -> String? {
        let bytes = Array(prefix.prefix(16))
        if starts(bytes, Array("ftyp".utf8), at: 4) { return isVideoBrand(bytes) ? "mp4" : nil }
        // A QuickTime file from before `ftyp` (older cameras) opens with one of these atoms.
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(where: { starts(bytes, Array($0.utf8), at: 4) }) {
            return "mp4"
        }
        if starts(bytes, [0x1A, 0x45, 0xDF, 0xA3]) { return "matroska" }
        if starts(bytes, Array("RIFF".utf8)), starts(bytes, Array("AVI ".utf8), at: 8) { return "avi" }
        return nil
    }

    /// An image or a video: what a photo's URL may hold.
    package static func isMedia(_ prefix: some Collection<UInt8>) -> Bool {
        imageType(of: prefix) != nil || videoType(of: prefix) != nil
    }

    /// The `ftyp` box's major brand is a video's (MP4, QuickTime, 3GPP, M4V), not HEIF's or
    /// AVIF's, which share the box.
    private static func isVideoBrand(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12 else { return false }
        let brand = String(decoding: bytes[8..<12], as: UTF8.self)
        return videoBrands.contains(brand) || brand.hasPrefix("3gp") || brand.hasPrefix("3g2")
    }

    private static let videoBrands: Set<String> = [
        "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "mp71", "avc1", "qt  ", "M4V ", "M4VH",
        "M4VP", "dash", "XAVC", "MSNV", "NDAS", "f4v ",
    ]

    private static func starts(_ bytes: [UInt8], _ magic: [UInt8], at offset: Int = 0) -> Bool {
        bytes.count >= offset + magic.count && Array(bytes[offset..<offset + magic.count]) == magic
    }
}
