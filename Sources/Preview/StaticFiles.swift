import Foundation
import GalleryCore
import HTTPTypes
import Hummingbird

/// Serves the output folder and nothing else: content types for every file a build writes,
/// validators with 304 answers, caching fit for each kind of file, HEAD, a 404 page. A path that
/// would leave the folder (`..`, `%2e%2e`, an absolute path, a symlink pointing out) is a 404.
struct StaticFiles: Sendable {
    let root: URL

    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "json": "application/json", "webp": "image/webp", "avif": "image/avif", "jpg": "image/jpeg",
        "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "svg": "image/svg+xml",
        "txt": "text/plain; charset=utf-8",
        "ico": "image/x-icon", "xml": "application/xml", "woff2": "font/woff2",
    ]

    /// A file to send, or nil for a 404.
    struct File {
        var url: URL
        var contentType: String
        var size: Int
        var modified: Date
        var etag: String
        var cacheControl: String
        var isHTML: Bool
    }

    /// Resolves a request path to a file inside the root, following the folder's index.html.
    func file(forPath rawPath: String) -> File? {
        let path = rawPath.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard let decoded = path.removingPercentEncoding, !decoded.contains("\0") else { return nil }
        var segments: [String] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            // Each segment is a plain name: no parent, no current-folder tricks, no backslashes.
            guard segment != "..", segment != ".", !segment.contains("\\") else { return nil }
            segments.append(String(segment))
        }
        var candidate = segments.reduce(root) { $0.appendingPathComponent($1) }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) else { return nil }
        if isDirectory.boolValue { candidate = candidate.appendingPathComponent("index.html") }
        // Symlinks may not lead out of the folder.
        let realRoot = root.resolvingSymlinksInPath().standardizedFileURL.path
        let realFile = candidate.resolvingSymlinksInPath().standardizedFileURL.path
        guard realFile.hasPrefix(realRoot.hasSuffix("/") ? realRoot : realRoot + "/") else { return nil }
        guard let status = FileStatus(path: realFile), status.isRegularFile else { return nil }
        let size = Int(status.size)
        let modified = Date(timeIntervalSince1970: status.modified)
        let fileExtension = candidate.pathExtension.lowercased()
        let isImage = segments.first == "images"
        return File(
            url: URL(fileURLWithPath: realFile),
            contentType: Self.contentTypes[fileExtension] ?? "application/octet-stream",
            size: size,
            modified: modified,
            etag: "\"\(String(size, radix: 16))-\(String(Int(modified.timeIntervalSince1970 * 1000), radix: 16))\"",
            // Thumbnails are named by their content: cache forever. Everything else: ask each time.
            cacheControl: isImage ? "public, max-age=31536000, immutable" : "no-cache",
            isHTML: fileExtension == "html"
        )
    }
}
