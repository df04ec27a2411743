/// What names and types say a file is, before its bytes do: a photo or a clip.
package enum MediaKind {
    /// The extensions of clips a folder feed reads and a URL is recognised by (`.mp4`, `.mov`…).
    package static let videoExtensions: Set<String> = ["mp4", "mov", "m4v", "webm", "mkv", "avi"]

    /// A MIME type of a clip (`video/mp4`, `video/quicktime`).
    package static func isVideo(mimeType: String) -> Bool {
        mimeType.trimmingWhitespace().lowercased().hasPrefix("video/")
    }

    /// A path or URL path whose extension is a clip's.
    package static func isVideo(path: String) -> Bool {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return videoExtensions.contains(path[path.index(after: dot)...].lowercased())
    }
}
