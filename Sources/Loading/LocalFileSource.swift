import Foundation
import GalleryCore

/// Loads `file:` URLs: the image stays where it is; it is hashed as it is read.
struct LocalFileSource: Sendable {
    let maxImageBytes: Int64
    let maxVideoBytes: Int64

    func original(for source: CanonicalURL) throws -> Original {
        let file = source.url
        guard let status = FileStatus(file) else {
            throw LoadingError(
                .unreadableFile, url: file.path, "cannot read the file: it does not exist or is not readable")
        }
        guard status.isRegularFile else {
            throw LoadingError(
                .unreadableFile, url: file.path, "not a plain file (a folder, pipe, socket or device); not read")
        }
        let size = status.size
        if size > maxImageBytes {
            // A clip is bounded by video.max_bytes; its first bytes say whether it is one.
            let isVideo = PlainFile.head(of: file).flatMap(ImageSniffer.videoType(of:)) != nil
            let (limit, name) = isVideo ? (maxVideoBytes, "video.max_bytes") : (maxImageBytes, "max_image_bytes")
            guard size <= limit else {
                throw LoadingError(
                    .tooLarge, url: file.path,
                    "the file is \(size) bytes, over \(name) (\(limit)); raise it in gallery.yml")
            }
        }
        do {
            let digest = try FileDigest.sha256(of: file)
            return Original(source: source, file: file, sha256: digest.hex, byteCount: digest.byteCount, origin: .local)
        } catch {
            throw LoadingError(.unreadableFile, url: file.path, "cannot read the file", underlying: error as NSError)
        }
    }
}
