import Foundation
import GalleryCore

extension FeedReader {
    /// File extensions read as images in a folder feed.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "webp", "gif", "avif", "heic", "heif", "tif", "tiff",
    ]

    /// How deep a folder feed is read: deeper folders are reported, not followed.
    static let folderDepthLimit = 16

    /// Reads a folder as a feed, as photographers keep them: the images at the top, then each
    /// subfolder at any depth as an album named by its path (`2019 / Iceland`), each list in name
    /// order, titled by file name. Hidden files and folders are ignored; a folder reached twice
    /// through links is read once.
    package func document(fromFolder folder: URL) throws(FeedError) -> FeedDocument {
        var photos: [Photo] = []
        var skipped: [FeedIssue] = []
        var visited: Set<String> = []
        try collect(
            folder: folder, path: [], depth: 0, into: &photos, skipped: &skipped, visited: &visited, isRoot: true)
        return FeedDocument(photos: photos, skipped: skipped)
    }

    private func collect(
        folder: URL, path: [String], depth: Int, into photos: inout [Photo], skipped: inout [FeedIssue],
        visited: inout Set<String>, isRoot: Bool
    ) throws(FeedError) {
        let fileManager = FileManager.default
        guard visited.insert(folder.resolvingSymlinksInPath().path).inserted else { return }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            guard isRoot else {
                skipped.append(
                    FeedIssue(
                        index: photos.count + skipped.count,
                        message: "cannot list the folder \(path.joined(separator: "/")): \(error.localizedDescription)")
                )
                return
            }
            throw FeedError(
                .unreadableFolder, "cannot list the feed folder \(folder.path)", underlying: error as NSError)
        }
        var subfolders: [(String, URL)] = []
        let album = path.isEmpty ? nil : path.joined(separator: " / ")
        for name in names {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                subfolders.append((name, url))
            } else if Self.isImageName(name) {
                let id = (path + [name]).joined(separator: "/")
                photos.append(
                    Photo(index: photos.count, id: id, title: Self.title(ofFile: name), source: url, album: album))
            }
        }
        for (name, url) in subfolders {
            guard depth + 1 <= Self.folderDepthLimit else {
                skipped.append(
                    FeedIssue(
                        index: photos.count,
                        message: "\((path + [name]).joined(separator: "/")): deeper than \(Self.folderDepthLimit) "
                            + "folders; not read"))
                continue
            }
            try collect(
                folder: url, path: path + [name], depth: depth + 1, into: &photos, skipped: &skipped,
                visited: &visited, isRoot: false)
        }
    }

    /// A file name as a title: no extension, separators as spaces, camera prefixes' leading
    /// underscores gone (`_MG_7805_lossy80.webp` -> `MG 7805 lossy80`).
    static func title(ofFile name: String) -> String {
        let stem = (name as NSString).deletingPathExtension
        let words = stem.split { $0 == "_" || $0 == "-" || $0 == " " || $0 == "." }
        let title = words.joined(separator: " ")
        return title.isEmpty ? stem : title
    }

    static func isImageName(_ name: String) -> Bool {
        imageExtensions.contains((name as NSString).pathExtension.lowercased())
    }
}
