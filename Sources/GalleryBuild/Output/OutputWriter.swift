import Foundation
import GalleryCore
import GalleryJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file the build puts in the output folder.
struct OutputFile: Sendable {
    enum Content: Sendable {
        case bytes([UInt8])
        /// A copy of a cache file whose name says its content: an existing file of that name and
        /// size is the same file.
        case copy(of: URL, size: Int64)
    }

    /// Relative to the output folder.
    var path: String
    var content: Content
}

/// Writes the site into the output folder so that a failure at any point (a full disk, a
/// read-only file) leaves the site the previous build wrote:
///
/// 1. content files (thumbnails: new names beside the old ones) are copied in, each atomically;
/// 2. every page and asset that changed, and the manifest, are written to temporary names beside
///    their targets and flushed;
/// 3. only when all of them are on disk are they renamed into place, the manifest last (a rename
///    needs no space);
/// 4. then the files the previous build wrote and this one does not are removed.
///
/// A failure in 1 or 2 removes what this build added (the temporary files and the content files
/// it created), so nothing is left that no manifest names and the previous site stands whole.
/// Unchanged files are not rewritten (they keep their mtime).
struct OutputWriter {
    let directory: URL
    /// Called with each file's relative path just before it is written: tests make it throw to
    /// stand in for a full disk.
    var beforeWriting: (@Sendable (String) throws -> Void)?

    init(directory: URL, beforeWriting: (@Sendable (String) throws -> Void)? = nil) {
        self.directory = directory
        self.beforeWriting = beforeWriting
    }

    struct Result {
        var written = 0
        var bytesWritten: Int64 = 0
        var removed = 0
    }

    /// The files the build before wrote, if the output has a readable manifest (its photos are
    /// not read: at 100,000 photos they would cost hundreds of megabytes for nothing).
    func previousFiles() -> [String]? {
        let file = directory.appendingPathComponent(Manifest.fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return Manifest.fileList(of: data)
    }

    /// `previous`: the files the build before wrote (``previousFiles()``).
    func write(_ files: [OutputFile], manifest: Manifest, previous: [String]?) throws -> Result {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        removeLeftovers()
        var result = Result()
        var created: [URL] = []
        var staged: [(temporary: URL, target: URL)] = []
        do {
            for file in files {
                guard case .copy(let source, let size) = file.content else { continue }
                let target = directory.appendingPathComponent(file.path)
                if FileStatus(target)?.size == size { continue }
                try beforeWriting?(file.path)
                let existed = fileManager.fileExists(atPath: target.path)
                try fileManager.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                let temporary = AtomicFile.temporaryURL(for: target)
                do {
                    try fileManager.copyItem(at: source, to: temporary)
                    try AtomicFile.commit(temporary, to: target)
                } catch {
                    try? fileManager.removeItem(at: temporary)
                    throw error
                }
                if !existed { created.append(target) }
                result.bytesWritten += size
                result.written += 1
            }
            // The manifest goes with the pages, last; when its bytes are those of the previous
            // one, it is left alone like any unchanged page.
            var staging = files.compactMap { file -> (String, [UInt8])? in
                guard case .bytes(let bytes) = file.content else { return nil }
                return (file.path, bytes)
            }
            staging.append((Manifest.fileName, [UInt8](try manifest.encoded())))
            for (path, bytes) in staging {
                let target = directory.appendingPathComponent(path)
                if let existing = fileManager.contents(atPath: target.path), Self.same(existing, bytes) { continue }
                try beforeWriting?(path)
                try fileManager.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                let temporary = AtomicFile.temporaryURL(for: target)
                staged.append((temporary, target))
                try Data(bytes).write(to: temporary)
                try AtomicFile.synchronize(temporary)
                if path != Manifest.fileName {
                    result.bytesWritten += Int64(bytes.count)
                    result.written += 1
                }
            }
        } catch {
            for (temporary, _) in staged { try? fileManager.removeItem(at: temporary) }
            for target in created { try? fileManager.removeItem(at: target) }
            throw error
        }
        for (temporary, target) in staged {
            guard rename(temporary.path, target.path) == 0 else {
                let reason = String(cString: strerror(errno))
                for (temporary, _) in staged { try? fileManager.removeItem(at: temporary) }
                throw CocoaError(
                    .fileWriteUnknown,
                    userInfo: [NSLocalizedDescriptionKey: "cannot rename into \(target.path): \(reason)"])
            }
        }
        let produced = Set(files.map(\.path))
        for stale in previous ?? [] where !produced.contains(stale) && Self.isSafeRelativePath(stale) {
            let target = directory.appendingPathComponent(stale)
            if (try? fileManager.removeItem(at: target)) != nil { result.removed += 1 }
        }
        return result
    }

    /// Byte equality with memcmp (comparing `Data` element by element costs more than the read).
    private static func same(_ data: Data, _ bytes: [UInt8]) -> Bool {
        guard data.count == bytes.count else { return false }
        return data.withUnsafeBytes { old in
            bytes.withUnsafeBytes { new in
                guard let a = old.baseAddress, let b = new.baseAddress else { return true }
                return memcmp(a, b, new.count) == 0
            }
        }
    }

    /// Temporary files a killed build left in the output folder or its `images/` and `assets/`.
    private func removeLeftovers() {
        for folder in [
            directory, directory.appendingPathComponent("images"), directory.appendingPathComponent("assets"),
        ] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where AtomicFile.isTemporaryName(name) {
                try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }

    /// A manifest is read from disk: never let one of its entries point outside the output folder.
    static func isSafeRelativePath(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/").contains("..")
    }
}
