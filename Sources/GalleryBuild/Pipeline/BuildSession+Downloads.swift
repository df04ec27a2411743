import Foundation
import GalleryCore
import Loading
import Metadata
import Rendering
import Reporting

/// What visitors can download (`downloads:`): each photo's file, and a zip of each album.
struct PlannedDownloads {
    /// The photos' files the output takes: originals (renditions are there already).
    var files: [OutputFile] = []
    /// Originals fetched for this build alone (a `no-store` answer's): removed once written.
    var transient: [URL] = []
    var warnings: [String] = []
}

extension BuildSession {
    /// The folder published originals go to, each named by its hash.
    static let originalsFolder = "originals/"
    /// The folder albums' zips go to, each named by the hash of what it holds.
    static let zipsFolder = "downloads/"
    /// Part of the name of an original published without its place: a new ``OriginalCleaner``
    /// that writes other bytes gets a new version, and so new names.
    static let placeRemovedSuffix = "-c\(OriginalCleaner.version)"

    /// Decides each photo's download. Originals come from the cache, else from the output where
    /// the last build put them (`previous`, its file list; checked by their bytes), else are
    /// fetched again (a seeded or shared build never had their bytes; a `no-store` one was let
    /// go). Unless `location: exact`, a JPEG original is published as ``OriginalCleaner`` keeps
    /// it. Where an original cannot be published (its metadata cannot be read whole, it is not a
    /// JPEG, it cannot be fetched), the photo's largest rendition is offered instead, with a
    /// warning.
    ///
    /// `recorded` gives the hash the last build recorded for a file it wrote, while the file is
    /// still as it left it (its stamp unchanged): an original cleaned then is not cleaned again.
    func planDownloads(
        for items: inout [BuildItem], previous: [String]?, recorded: (String) -> PageFingerprint? = { _ in nil }
    ) async -> PlannedDownloads {
        var plan = PlannedDownloads()
        guard config.downloads != .off else { return plan }
        let removesPlace = config.location != .exact
        var published: [String: String] = [:]
        for path in previous ?? [] where path.hasPrefix(Self.originalsFolder) {
            let name = path.dropFirst(Self.originalsFolder.count)
            published[String(name.prefix { $0 != "." })] = path
        }
        // By the original's hash: photos that share bytes share one file.
        var decided: [String: Download?] = [:]
        var notJPEG: [String] = []
        for offset in items.indices {
            let photo = items[offset].photo
            guard case .done(let original, let image, _, _, _) = items[offset].outcome else { continue }
            let stem = Self.downloadStem(of: photo)
            let largest = Self.largestDownload(of: image, stem: stem)
            guard config.downloads == .original else {
                items[offset].download = largest
                continue
            }
            let known: Download?
            if let found = decided[original.sha256] {
                known = found
            } else {
                let key = String(original.sha256.prefix(20)) + (removesPlace ? Self.placeRemovedSuffix : "")
                known = await originalDownload(
                    original, key: key, published: published[key], removesPlace: removesPlace, plan: &plan,
                    notJPEG: &notJPEG, name: displayName(of: photo.source), recorded: recorded)
                decided[original.sha256] = known
            }
            guard var download = known else {
                items[offset].download = largest
                continue
            }
            download.fileName = stem + "." + (download.path.split(separator: ".").last.map(String.init) ?? "")
            items[offset].download = download
        }
        if !notJPEG.isEmpty {
            let listed = notJPEG.prefix(3).joined(separator: ", ") + (notJPEG.count > 3 ? ", …" : "")
            plan.warnings.append(
                "downloads: \(notJPEG.count) original(s) are not JPEG (\(listed)); gallerygen removes where a photo "
                    + "was taken only from JPEG files, so these offer their largest rendition instead "
                    + "(`location: exact` publishes them as they are)")
        }
        return plan
    }

    /// The download of one original, and its file added to `plan`; nil when it cannot be had
    /// (a warning says why, unless it is a format whose place is not removed).
    private func originalDownload(
        _ original: Original, key: String, published: String?, removesPlace: Bool, plan: inout PlannedDownloads,
        notJPEG: inout [String], name: String, recorded: (String) -> PageFingerprint?
    ) async -> Download? {
        let size = original.byteCount
        // Cleaned and written by the last build, and as it left it since (checked by its hash when
        // written; by its stamp now): not read again. A file swapped in since has another stamp.
        if removesPlace, let published, published.hasSuffix(".jpg"), let fingerprint = recorded(published),
            let status = FileStatus(layout.outputDirectory.appendingPathComponent(published)),
            FileStatus(original.file)?.isRegularFile == true
        {
            plan.files.append(
                Self.cleanedOriginal(
                    original.file, size: size, at: published, cleanedSize: status.size,
                    sha256: fingerprint.description, name: name))
            return Download(path: published, fileName: "", byteCount: status.size, kind: OriginalKind.jpeg.label)
        }
        let hinted = Self.hintedKind(of: original)
        if removesPlace, let hinted, hinted != .jpeg {
            notJPEG.append(name)
            return nil
        }
        var file = original.file
        if FileStatus(file)?.isRegularFile != true {
            // In place as the last build published it, checked by its bytes: not fetched.
            if let published,
                let kept = Self.publishedInPlace(
                    published, in: layout.outputDirectory, sha256: original.sha256, cleaned: removesPlace)
            {
                plan.files.append(kept.file)
                return kept.download
            }
            do {
                let fresh = try await loader.freshCopy(of: original)
                guard fresh.sha256 == original.sha256 else {
                    if fresh.isTransient { try? FileManager.default.removeItem(at: fresh.file) }
                    plan.warnings.append(
                        "\(name): its original changed while the site was built; its largest rendition is offered "
                            + "for download until the next build")
                    return nil
                }
                file = fresh.file
                if fresh.isTransient { plan.transient.append(fresh.file) }
            } catch {
                plan.warnings.append(
                    "\(name): cannot fetch its original for download (\(FailureCause.message(of: error))); its "
                        + "largest rendition is offered instead")
                return nil
            }
        }
        guard let kind = PlainFile.head(of: file).flatMap({ OriginalKind(sniffing: $0) }) else { return nil }
        if removesPlace {
            guard kind == .jpeg else {
                notJPEG.append(name)
                return nil
            }
            // Cleaned now, so that a file that cannot be is a warning, not a failed write, and so
            // that the copy in place is checked by its hash.
            guard let bytes = try? [UInt8](Data(contentsOf: file)), bytes.count == size,
                let cleaned = OriginalCleaner.cleaned(jpeg: bytes)
            else {
                plan.warnings.append(
                    "\(name): its metadata cannot be read whole, so what it says (where it was taken among it) "
                        + "cannot be sorted for sure; its largest rendition is offered for download instead")
                return nil
            }
            let path = Self.originalsFolder + key + ".jpg"
            let cleanedSize = Int64(cleaned.count)
            plan.files.append(
                Self.cleanedOriginal(
                    file, size: size, at: path, cleanedSize: cleanedSize, sha256: sha256Hex(of: Data(cleaned)),
                    name: name))
            return Download(path: path, fileName: "", byteCount: cleanedSize, kind: kind.label)
        }
        let path = Self.originalsFolder + key + "." + kind.fileExtension
        plan.files.append(OutputFile(path: path, content: .copy(of: file, size: size, sha256: original.sha256)))
        return Download(path: path, fileName: "", byteCount: size, kind: kind.label)
    }

    /// The file the last build published at `published`, when its bytes are what this build would
    /// publish: the original itself (`sha256`), or with `cleaned` a copy that ``OriginalCleaner``
    /// made (cleaning it again changes nothing). A file swapped in at the same name and size is
    /// not taken.
    static func publishedInPlace(_ published: String, in output: URL, sha256: String, cleaned: Bool) -> (
        file: OutputFile, download: Download
    )? {
        let url = output.appendingPathComponent(published)
        guard FileStatus(url)?.isRegularFile == true, let data = try? Data(contentsOf: url) else { return nil }
        let hash = sha256Hex(of: data)
        if cleaned {
            let bytes = [UInt8](data)
            guard OriginalCleaner.cleaned(jpeg: bytes) == bytes else { return nil }
        } else {
            guard hash == sha256 else { return nil }
        }
        let kind = OriginalKind.allCases.first { published.hasSuffix("." + $0.fileExtension) }
        return (
            OutputFile(path: published, content: .copy(of: url, size: Int64(data.count), sha256: hash)),
            Download(path: published, fileName: "", byteCount: Int64(data.count), kind: kind?.label ?? "File")
        )
    }

    /// The output file at `path` that is `file` (of `size` bytes) as ``OriginalCleaner`` keeps it:
    /// `cleanedSize` bytes hashing to `sha256`, made only when the output does not hold it.
    static func cleanedOriginal(
        _ file: URL, size: Int64, at path: String, cleanedSize: Int64, sha256: String, name: String
    ) -> OutputFile {
        OutputFile(
            path: path,
            content: .made(size: cleanedSize, sha256: sha256) { target in
                try writeCleaned(file, size: size, to: target, name: name)
            })
    }

    /// Writes `file` as ``OriginalCleaner`` keeps it, or throws: never as it is.
    private static func writeCleaned(_ file: URL, size: Int64, to target: URL, name: String) throws {
        let bytes = try [UInt8](Data(contentsOf: file))
        guard bytes.count == size, let cleaned = OriginalCleaner.cleaned(jpeg: bytes) else {
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [
                    NSFilePathErrorKey: file.path,
                    NSLocalizedDescriptionKey: "\(name): its original changed while the site was built",
                ])
        }
        try Data(cleaned).write(to: target)
    }

    /// The kind an original's answer or address says it is, without reading it.
    static func hintedKind(of original: Original) -> OriginalKind? {
        let type = original.contentType?.lowercased() ?? ""
        let byType: [(String, OriginalKind)] = [
            ("jpeg", .jpeg), ("jpg", .jpeg), ("png", .png), ("webp", .webp), ("gif", .gif), ("tiff", .tiff),
            ("heic", .heic), ("heif", .heic), ("avif", .avif), ("jxl", .jxl),
        ]
        if type.hasPrefix("image/"), let found = byType.first(where: { type.contains($0.0) }) { return found.1 }
        let ext = original.source.url.pathExtension.lowercased()
        return byType.first { ext == $0.0 || (ext == "tif" && $0.1 == .tiff) }?.1
    }

    /// The largest rendition of the most widely read format (JPEG when made).
    static func largestDownload(of image: ProcessedImage, stem: String) -> Download? {
        let format = image.renditions.contains { $0.format == .jpeg } ? .jpeg : image.renditions.first?.format
        guard let largest = image.renditions.filter({ $0.format == format }).max(by: { $0.width < $1.width }) else {
            return nil
        }
        return Download(
            path: largest.path, fileName: stem + "." + largest.format.fileExtension, byteCount: largest.byteCount,
            kind: largest.format.rawValue.uppercased())
    }

    /// The name a photo's file is saved under, without its extension: its own file name's stem
    /// (`IMG_0001`), else `photo-N`.
    static func downloadStem(of photo: Photo) -> String {
        var name = photo.source.lastPathComponent.removingPercentEncoding ?? photo.source.lastPathComponent
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        // Room left for an extension and a `-2` within a file name's 200 bytes.
        let cleaned = ZipArchive.entryName([ZipArchive.capped(name, bytes: 180)])
        return cleaned.isEmpty ? "photo-\(photo.index + 1)" : cleaned
    }

    /// A zip per album of its photos' downloads (its inner albums' in folders), added to
    /// `gallery`'s albums, and the files that make them. Each is named by the hash of what it
    /// holds: a build finds it in place, and makes it again only when a photo in it changes.
    func planAlbumZips(of gallery: inout Gallery) -> [OutputFile] {
        guard config.downloads != .off else { return [] }
        let albums = gallery.albumContents(from: config.albums, language: config.language)
        var files: [OutputFile] = []
        let output = layout.outputDirectory
        for (number, album) in albums.enumerated() {
            var entries: [ZipArchive.Entry] = []
            var taken: Set<String> = []
            // A photo shown twice in one album (the same file) is in its zip once.
            var included: Set<String> = []
            func add(_ number: Int, folder: [String]) {
                for item in albums[number].items {
                    guard let download = item.download, included.insert(download.path).inserted else { continue }
                    var name = ZipArchive.entryName(folder + [download.fileName])
                    // Two photos of one name in one folder: `IMG_0001-2.jpg` for the second.
                    let dot = name.lastIndex(of: ".").flatMap {
                        $0 > (name.lastIndex(of: "/") ?? name.startIndex) ? $0 : nil
                    }
                    let (base, ext) = (String(name[..<(dot ?? name.endIndex)]), String(name[(dot ?? name.endIndex)...]))
                    var counter = 1
                    while !taken.insert(name.lowercased()).inserted {
                        counter += 1
                        name = "\(base)-\(counter)\(ext)"
                    }
                    entries.append(
                        ZipArchive.Entry(
                            name: name, file: output.appendingPathComponent(download.path),
                            byteCount: download.byteCount))
                }
                for child in albums[number].children {
                    add(child, folder: folder + [albums[child].title])
                }
            }
            add(number, folder: [])
            guard !entries.isEmpty else { continue }
            var digest = entries.map { entry in
                "\(entry.name)\t\(entry.file.path.dropFirst(output.path.count))\t\(entry.byteCount)\n"
            }.joined()
            digest += "zip1"
            let path = Self.zipsFolder + String(sha256Hex(of: Data(digest.utf8)).prefix(20)) + ".zip"
            let archive = ZipArchive(entries: entries)
            let size = archive.byteCount
            let title = ZipArchive.entryName([album.title])
            gallery.albums[album.path, default: AlbumDetails()].download = Download(
                path: path, fileName: (title.isEmpty ? "album" : title) + ".zip", byteCount: size,
                kind: "ZIP", photoCount: entries.count)
            files.append(OutputFile(path: path, content: .made(size: size) { target in try archive.write(to: target) }))
        }
        return files
    }
}
