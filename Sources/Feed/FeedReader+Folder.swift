import Foundation
import GalleryCore

extension FeedReader {
    /// File extensions read as images in a folder feed.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "webp", "gif", "avif", "heic", "heif", "tif", "tiff",
    ]

    /// Reads a folder as a feed: its images in name order, titled by file name; each subfolder
    /// (one level) is an album. Hidden files are ignored.
    public func document(fromFolder folder: URL) throws(FeedError) -> FeedDocument {
        var photos: [Photo] = []
        for (album, files) in try imageFiles(in: folder) {
            for file in files {
                let stem = file.deletingPathExtension().lastPathComponent
                let title = stem.replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")
                let id = album.map { "\($0)/\(file.lastPathComponent)" } ?? file.lastPathComponent
                photos.append(Photo(index: photos.count, id: id, title: title, source: file, album: album))
            }
        }
        return FeedDocument(photos: photos)
    }

    /// The images of the folder (album nil) and of each subfolder, each list sorted by name.
    private func imageFiles(in folder: URL) throws(FeedError) -> [(album: String?, files: [URL])] {
        let fileManager = FileManager.default
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw FeedError(
                .unreadableFolder, "cannot list the feed folder \(folder.path): \(error.localizedDescription)")
        }
        var topLevel: [URL] = []
        var albums: [(String?, [URL])] = []
        for name in names {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let files = ((try? fileManager.contentsOfDirectory(atPath: url.path)) ?? [])
                    .filter { !$0.hasPrefix(".") && Self.isImageName($0) }
                    .sorted()
                    .map { url.appendingPathComponent($0) }
                if !files.isEmpty { albums.append((name, files)) }
            } else if Self.isImageName(name) {
                topLevel.append(url)
            }
        }
        return [(nil, topLevel)] + albums
    }

    static func isImageName(_ name: String) -> Bool {
        imageExtensions.contains((name as NSString).pathExtension.lowercased())
    }
}
