package import Foundation
package import GalleryCore
import Synchronization

extension FeedReader {
    /// File extensions read as images in a folder feed.
    static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "png", "webp", "gif", "avif", "heic", "heif", "tif", "tiff",
    ]

    /// The file in an album folder that says what the album is (its title, cover, order and
    /// description). The feed folder's own is not read: the site's intro says that.
    static let albumNoteName = "index.md"

    /// How deep a folder feed is read: deeper folders are reported, not followed.
    package static let folderDepthLimit = 16

    /// Reads a folder as a feed, as photographers keep them: the images at the top, then each
    /// subfolder at any depth as an album named by its path (`2019 / Iceland`), each list in name
    /// order, titled by file name. Hidden files and folders are ignored; a folder reached twice
    /// through links is read once; only plain files are taken (a pipe or a device named
    /// `photo.jpg` is reported, never opened).
    ///
    /// - Parameter allowedRoots: the folders a symbolic link may lead into (the site folder and
    ///   the feed folder): a link to anywhere else is reported and not followed, so a pull
    ///   request cannot publish a file of the build machine by adding a link. Nil follows every
    ///   link (`follow_symlinks: true`).
    package func document(fromFolder folder: URL, allowedRoots: [URL]? = nil) throws(FeedError) -> FeedDocument {
        var walk = FolderWalk(roots: allowedRoots)
        try collect(folder: folder, path: [], depth: 0, walk: &walk, isRoot: true)
        // A cover names a photo of its album, or of an album inside it.
        let ids = Set(walk.photos.map(\.id))
        for (path, note) in walk.albums {
            guard let cover = note.cover, !ids.contains(cover) else { continue }
            let shown = path.joined(separator: "/")
            walk.warnings.append(
                "\(shown)/index.md: the cover \"\(cover.dropFirst(shown.count + 1).prefix(80))\" is no photo of the "
                    + "album; its first photo stands for it")
            walk.albums[path]?.cover = nil
            if walk.albums[path] == AlbumNote() { walk.albums[path] = nil }
        }
        var document = FeedDocument(
            photos: walk.photos, albums: walk.albums, skipped: walk.skipped, warnings: walk.warnings)
        document.inputs = walk.inputs
        document.photoStamps = walk.photoStamps
        return document
    }

    private struct FolderWalk {
        /// The folders links may lead into; nil when they go anywhere.
        let roots: [URL]?
        var photos: [Photo] = []
        var skipped: [FeedIssue] = []
        /// What was wrong with the sidecars read.
        var warnings: [String] = []
        var visited: Set<String> = []
        /// What album folders' `index.md` files say.
        var albums: [[String]: AlbumNote] = [:]
        /// Each folder listed and each entry of it, stamped before anything was read.
        var inputs: [SourceInput] = []
        /// Each photo's stamp, by index.
        var photoStamps: [SourceStamp?] = []

        mutating func skip(_ message: String) {
            skipped.append(FeedIssue(index: photos.count + skipped.count, message: message))
        }

        /// Whether `url` (a link, or reached through one) resolves inside an allowed root.
        func isAllowed(_ url: URL) -> Bool {
            Self.isAllowed(url, roots: roots)
        }

        static func isAllowed(_ url: URL, roots: [URL]?) -> Bool {
            roots?.contains { url.isInside($0) } ?? true
        }
    }

    private func collect(
        folder: URL, path: [String], depth: Int, walk: inout FolderWalk, isRoot: Bool
    ) throws(FeedError) {
        let fileManager = FileManager.default
        guard walk.visited.insert(folder.resolvingSymlinksInPath().path).inserted else { return }
        // Stamped before it is listed: an entry added while it is read changes it.
        if let status = FileStatus(folder) {
            walk.inputs.append(SourceInput(path: folder.path, stamp: SourceStamp(status)))
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            guard isRoot else {
                walk.skip("cannot list the folder \(path.joined(separator: "/")): \(error.localizedDescription)")
                return
            }
            throw FeedError(
                .unreadableFolder, "cannot list the feed folder \(folder.path)", underlying: error as NSError)
        }
        let listed = Set(names)
        let livePhotos = Self.livePhotos(among: names)
        let motions = Set(livePhotos.values)
        if !path.isEmpty, listed.contains(Self.albumNoteName) {
            let (note, warnings) = Sidecar.albumNote(
                of: folder.appendingPathComponent(Self.albumNoteName), album: path.joined(separator: "/"),
                isAllowed: walk.isAllowed)
            walk.warnings += warnings
            // Keyed as the photos' album paths are: cleaned.
            if let note { walk.albums[Photo.cleanedAlbumPath(path)] = note }
        }
        // Paths as strings, a URL made only for what needs one: `appendingPathComponent` looks at
        // the file system to tell a folder, and was a quarter of a 100,000-photo folder's walk.
        let folderPath = folder.path.hasSuffix("/") ? String(folder.path.dropLast()) : folder.path
        let shownFolder = path.joined(separator: "/")
        let roots = walk.roots
        // Each entry is looked at on its own (stamped, its sidecar read), on every core: a
        // folder of 100,000 photos took a second on one. The results are taken in name order.
        let entries = Self.concurrentEntries(of: names) { name in
            Self.entry(
                name, in: folder, folderPath: folderPath, path: path, shownFolder: shownFolder, listed: listed,
                livePhotos: livePhotos, motions: motions,
                isAllowed: { FolderWalk.isAllowed($0, roots: roots) })
        }
        var subfolders: [(String, URL)] = []
        for part in entries {
            for entry in part {
                if let input = entry.input { walk.inputs.append(input) }
                switch entry.kind {
                case .ignored: break
                case .skipped(let message): walk.skip(message)
                case .folder(let name, let url): subfolders.append((name, url))
                case .photo(let name, let url, let motion, let sidecar):
                    walk.warnings += sidecar?.value.warnings ?? []
                    var photo = Self.photo(
                        ofFile: name, id: path.isEmpty ? name : shownFolder + "/" + name, source: url,
                        albumPath: path, index: walk.photos.count, metadata: sidecar?.value.metadata ?? PhotoMetadata(),
                        captionMarkdown: sidecar?.value.captionMarkdown)
                    photo.motion = motion
                    walk.photos.append(photo)
                    walk.photoStamps.append(entry.input?.stamp)
                }
            }
        }
        for (name, url) in subfolders {
            guard depth + 1 <= Self.folderDepthLimit else {
                walk.skip(
                    "\((path + [name]).joined(separator: "/")): deeper than \(Self.folderDepthLimit) folders; not read")
                continue
            }
            try collect(folder: url, path: path + [name], depth: depth + 1, walk: &walk, isRoot: false)
        }
    }

    /// What the walk makes of one entry of a folder, looked at on any core: small, the photo
    /// itself made afterwards in name order (100,000 photos made in parts and then gathered
    /// were three copies of them at once).
    private struct FolderEntry: Sendable {
        enum Kind: Sendable {
            case ignored
            case skipped(String)
            case folder(String, URL)
            /// A photo's file, its Live Photo's motion, and its sidecars when it has any.
            case photo(name: String, url: URL, motion: URL?, sidecar: Boxed<Sidecar>?)
        }

        /// The entry's stamp, taken before it is read: a file's (a folder is stamped when it is
        /// listed).
        var input: SourceInput?
        var kind: Kind
    }

    /// A value behind a reference: an optional sidecar the size of a pointer, not of a sidecar.
    private final class Boxed<Value: Sendable>: Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// `entry` of each name, in parts of consecutive names run on every core, in order.
    private static func concurrentEntries(of names: [String], _ entry: @Sendable (String) -> FolderEntry)
        -> [[FolderEntry]]
    {
        let partSize = 512
        guard names.count > partSize else { return [names.map(entry)] }
        let parts = (names.count + partSize - 1) / partSize
        let results = Mutex<[[FolderEntry]]>(Array(repeating: [], count: parts))
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let range = part * partSize..<min(names.count, (part + 1) * partSize)
            let made = names[range].map(entry)
            results.withLock { $0[part] = made }
        }
        return results.withLock { $0 }
    }

    /// One entry of a folder as the walk takes it: a photo (with its sidecars and motion), a
    /// folder to walk, an entry reported and not read, or one passed over.
    private static func entry(
        _ name: String, in folder: URL, folderPath: String, path: [String], shownFolder: String,
        listed: Set<String>, livePhotos: [String: String], motions: Set<String>, isAllowed: @Sendable (URL) -> Bool
    ) -> FolderEntry {
        let filePath = folderPath + "/" + name
        // One lstat(2) for all but a link, which is followed to what it names.
        guard let (status, isLink) = FileStatus.entry(path: filePath) else { return FolderEntry(kind: .ignored) }
        let isFolder = status.isDirectory
        // A folder is stamped when it is listed; a file (a photo, a sidecar, an index.md, or one
        // the walk passes over) as it is seen, before it is read.
        let input = isFolder ? nil : SourceInput(path: filePath, stamp: SourceStamp(status))
        guard isFolder || isMediaName(name) else { return FolderEntry(input: input, kind: .ignored) }
        // A Live Photo's motion (`IMG_0001.MOV` beside `IMG_0001.HEIC`) is the still's, not an
        // item of its own.
        if !isFolder, motions.contains(name) { return FolderEntry(input: input, kind: .ignored) }
        let shown = path.isEmpty ? name : shownFolder + "/" + name
        let url = URL(fileURLWithPath: filePath, isDirectory: isFolder)
        if isLink, !isAllowed(url) {
            return FolderEntry(
                input: input,
                kind: .skipped(
                    "\(shown): a symbolic link to a place outside the site folder; not read "
                        + "(set `follow_symlinks: true` in gallery.yml to read it)"))
        }
        if isFolder { return FolderEntry(input: input, kind: .folder(name, url)) }
        guard status.isRegularFile else {
            return FolderEntry(
                input: input, kind: .skipped("\(shown): not a plain file (a pipe, socket or device); not read"))
        }
        let sidecar = Sidecar.ifAny(of: name, among: listed, in: folder, shown: shownFolder, isAllowed: isAllowed)
        // The motion is read under the photo's rules: a plain file, a link only inside.
        let motion = livePhotos[name].flatMap { clip -> URL? in
            let motionPath = folderPath + "/" + clip
            guard let (status, isLink) = FileStatus.entry(path: motionPath), status.isRegularFile else { return nil }
            let motion = URL(fileURLWithPath: motionPath, isDirectory: false)
            return !isLink || isAllowed(motion) ? motion : nil
        }
        return FolderEntry(
            input: input, kind: .photo(name: name, url: url, motion: motion, sidecar: sidecar.map(Boxed.init)))
    }

    /// A file name as a title: no extension, separators as spaces, camera prefixes' leading
    /// underscores gone (`_MG_7805_lossy80.webp` -> `MG 7805 lossy80`).
    /// A file of a tree (a folder, a bucket's keys, a WebDAV folder) as a photo: titled by its
    /// name, `id` its path in the tree, in the album its folders name.
    package static func photo(
        ofFile name: String, id: String, source: URL, albumPath: [String], index: Int,
        metadata: PhotoMetadata = PhotoMetadata(), captionMarkdown: String? = nil
    ) -> Photo {
        var photo = Photo(
            index: index, id: id, title: title(ofFile: name), source: source, albumPath: albumPath,
            metadata: metadata, captionMarkdown: captionMarkdown)
        photo.titleIsFileName = true
        return photo
    }

    package static func title(ofFile name: String) -> String {
        let stem = nameParts(name).stem
        let words = stem.split { $0 == "_" || $0 == "-" || $0 == " " || $0 == "." }
        let title = words.joined(separator: " ")
        return title.isEmpty ? stem : title
    }

    /// A photo's or a clip's name (`.jpg`, `.heic`, `.mp4`, `.mov`…): what a folder, a bucket or
    /// a WebDAV folder gives the gallery.
    package static func isMediaName(_ name: String) -> Bool {
        let type = nameParts(name).type.lowercased()
        return imageExtensions.contains(type) || MediaKind.videoExtensions.contains(type)
    }

    /// A folder's Live Photos: each still (`.heic`, `.jpg`, `.jpeg`, any case) with the clip of
    /// the same name beside it (`.mov` or `.mp4`, any case; the first in name order when there
    /// are both), by the still's name. `names` are in name order.
    static func livePhotos(among names: [String]) -> [String: String] {
        var clips: [String: String] = [:]
        for name in names {
            let (stem, type) = nameParts(name)
            if ["mov", "mp4"].contains(type.lowercased()), clips[stem] == nil { clips[stem] = name }
        }
        guard !clips.isEmpty else { return [:] }
        var pairs: [String: String] = [:]
        for name in names {
            let (stem, type) = nameParts(name)
            guard ["heic", "jpg", "jpeg"].contains(type.lowercased()), let clip = clips[stem] else { continue }
            pairs[name] = clip
        }
        return pairs
    }
}

extension FeedReader {
    /// A file name's stem and extension as `NSString`'s `deletingPathExtension` and
    /// `pathExtension` give them (`a.b.jpg` is `a.b` and `jpg`; `.hidden` has none; `name.` is
    /// `name` and none), without a bridge to NSString per name.
    package static func nameParts(_ name: String) -> (stem: String, type: String) {
        let bytes = name.utf8
        guard let dot = bytes.lastIndex(of: UInt8(ascii: ".")), dot != bytes.startIndex else { return (name, "") }
        let before = name[..<dot]
        guard bytes.index(after: dot) != bytes.endIndex else {
            return before.utf8.allSatisfy { $0 == UInt8(ascii: ".") } ? (name, "") : (String(before), "")
        }
        return (String(before), String(name[name.index(after: dot)...]))
    }
}
