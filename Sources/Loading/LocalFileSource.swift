import Foundation
import GalleryCore

/// Loads `file:` URLs: the image stays where it is; it is hashed as it is read, unless
/// `digests` holds its hash for the stamp it still has.
struct LocalFileSource: Sendable {
    let maxImageBytes: Int64
    let maxVideoBytes: Int64
    /// The hashes of the files earlier builds read; nil: every file is read (a tool).
    let digests: LocalDigests?
    /// Every file is read, and its hash kept for the next build (`--full`).
    let rereads: Bool
    let clock: WallClock

    /// The original of a file whose hash is known for the stamp it has now, without reading it;
    /// nil when it must be read (``original(for:)``).
    func known(_ source: CanonicalURL) -> Original? {
        FileStatus(source.url).flatMap { known(source, status: $0) }
    }

    /// ``known(_:)`` for a file stat(2) has just described.
    private func known(_ source: CanonicalURL, status: FileStatus) -> Original? {
        guard status.isRegularFile else { return nil }
        return known(source, stamp: SourceStamp(status))
    }

    /// ``known(_:)`` for a plain file with `stamp`, taken by this build (a folder feed's walk):
    /// a stamp the file no longer has finds no hash, and the file is read.
    func known(_ source: CanonicalURL, stamp: SourceStamp) -> Original? {
        guard let digests, !rereads, stamp.size <= maxImageBytes else { return nil }
        guard let sha256 = digests.sha256(of: source.url.path, stamp: stamp) else { return nil }
        return Original(source: source, file: source.url, sha256: sha256, byteCount: stamp.size, origin: .local)
    }

    func original(for source: CanonicalURL) throws -> Original {
        let file = source.url
        let now = clock.now
        guard let status = FileStatus(file) else {
            throw LoadingError(
                .unreadableFile, url: file.path, "cannot read the file: it does not exist or is not readable")
        }
        if let known = known(source, status: status) { return known }
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
            // The stamp taken before the read: a write while it ran changes it, and the next
            // build reads the file again.
            if digest.byteCount == size {
                digests?.note(digest.hex, of: file.path, stamp: SourceStamp(status), at: now)
            }
            return Original(source: source, file: file, sha256: digest.hex, byteCount: digest.byteCount, origin: .local)
        } catch {
            throw LoadingError(.unreadableFile, url: file.path, "cannot read the file", underlying: error as NSError)
        }
    }
}
