/// What names and types say a file is, before its bytes do: a photo or a clip.
package enum MediaKind {
    /// The extensions of clips a folder feed reads and a URL is recognised by (`.mp4`, `.mov`…).
    package static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "webm", "mkv", "avi"]

    /// A MIME type of a clip (`video/mp4`, `video/quicktime`).
    package static func isVideo(mimeType: String) -> Bool {
        mimeType.trimmingWhitespace().lowercased().hasPrefix("video/")
    }

    /// The video container the bytes start like (`mp4` for MP4 and QuickTime, `matroska` for
    /// WebM and MKV, `avi`), or nil.
    package static func videoContainer(of prefix: some Collection<UInt8>) -> String? {
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

    /// The `ftyp` box's major brand is a video's (MP4, QuickTime, 3GPP, M4V), not HEIF's or
    /// AVIF's, which share the box.
    package static func isVideoBrand(_ bytes: [UInt8]) -> Bool {
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

    /// A path or URL path whose extension is a clip's.
    package static func isVideo(path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return videoExtensions.contains(path[path.index(after: dot)...].lowercased())
    }
}
