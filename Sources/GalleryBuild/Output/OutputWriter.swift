import BuildStore
import Foundation
import GalleryCore
import GalleryJSON
import Loading
import Rendering

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file the build puts in the output folder.
struct OutputFile: Sendable {
    enum Content: Sendable {
        case bytes([UInt8])
        /// A copy of a cache file whose name says its content, with its SHA-256 when known: an
        /// existing file of that name, size and hash is the same file.
        case copy(of: URL, size: Int64, sha256: String? = nil)
        /// A file whose name says its content, made by `make` at the path it is given (a new
        /// file): an existing file of that name and size is the same file, and of that hash too
        /// when its SHA-256 is given.
        case made(size: Int64, sha256: String? = nil, make: @Sendable (URL) throws -> Void)
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
        /// The files the manifest lists.
        var files: [String] = []
    }

    /// The files the build before wrote, if the output has a readable manifest (its photos are
    /// not read: at 100,000 photos they would cost hundreds of megabytes for nothing). When
    /// `recorded` is the list of this folder's manifest as it still is (same size, time and
    /// inode), it is the answer, and the manifest is not read at all.
    func previousFiles(recorded: PublishedFiles? = nil) -> [String]? {
        let file = directory.appendingPathComponent(Manifest.fileName)
        if let recorded, recorded.output == directory.standardizedFileURL.path,
            FileStamp(path: file.path) == recorded.manifest
        {
            return recorded.files
        }
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return Manifest.fileList(of: data)
    }

    /// The list the next build's ``previousFiles(recorded:)`` takes for this folder's manifest
    /// of `files`, as the manifest is now on disk; nil when it cannot be stat'ed.
    func published(_ files: [String]) -> PublishedFiles? {
        guard let manifest = FileStamp(path: directory.appendingPathComponent(Manifest.fileName).path) else {
            return nil
        }
        return PublishedFiles(output: directory.standardizedFileURL.path, manifest: manifest, files: files)
    }

    /// `previous`: the files the build before wrote (``previousFiles()``).
    func write(_ files: [OutputFile], manifest: Manifest, previous: [String]?) async throws -> Result {
        let staging = try Staging(self)
        do {
            try staging.copy(files)
            try staging.stage(
                files.compactMap { file in
                    guard case .bytes(let bytes) = file.content else { return nil }
                    return (file.path, bytes)
                })
            return try await staging.finish(manifest: manifest, previous: previous)
        } catch {
            staging.abandon()
            throw error
        }
    }

    /// One build's write, in steps: pages are staged as they are rendered (compared with the
    /// file in place, and written to a temporary name beside it only when they differ), content
    /// files copied in, and ``finish(manifest:previous:)`` renames everything staged into place
    /// with the manifest last. ``abandon()`` (after any failure, or an interruption before
    /// `finish`) removes what was staged and created, leaving the previous site whole.
    final class Staging {
        private let writer: OutputWriter
        private var result = Result()
        private var created: [URL] = []
        /// What is staged, in order: each path is the page's own string, and its temporary
        /// file's name is made again from it and its place here (``paths(of:at:)``), not kept (two
        /// URL objects a page were 86 MB of the peak of a 100,000-photo build, a temporary name
        /// 11 MB).
        private var staged: [String] = []
        /// The start of this write's temporary names, unique to it.
        private let temporaryPrefix = AtomicFile.temporaryPrefix()
        /// The output folder's path.
        private let folder: String

        /// Present while a build stages into the folder: a build that finds it knows the one
        /// before was killed while staging, and sweeps the whole folder for what it left. (Its
        /// name is a temporary file's, so that the sweep takes it too.) While a build moves its
        /// files into place it lists, a line each, the files it adds to the folder's list and
        /// those it removes: a build killed then may have left either, and the next build
        /// (``pending``) removes those it does not make itself.
        private let marker: URL
        /// The files a build killed while it moved its files into place may have left.
        private let pending: [String]

        init(_ writer: OutputWriter) throws {
            self.writer = writer
            folder = writer.directory.path
            marker = writer.directory.appendingPathComponent(".tmp-staging")
            try FileManager.default.createDirectory(at: writer.directory, withIntermediateDirectories: true)
            // Walking 200,000 files costs seconds: only after a build that did not end.
            if let left = try? Data(contentsOf: marker) {
                writer.removeLeftovers()
                pending = String(decoding: left, as: UTF8.self).split(separator: "\n").map(String.init)
            } else {
                pending = []
                // A build killed while it wrote its first marker left only the marker's temporary
                // file (`.tmp-PID-N-.tmp-staging`): a listing of the top folder finds it.
                let names = (try? FileManager.default.contentsOfDirectory(atPath: writer.directory.path)) ?? []
                for name in names where name.hasPrefix(".tmp-") && name.hasSuffix("-" + marker.lastPathComponent) {
                    try? FileManager.default.removeItem(at: writer.directory.appendingPathComponent(name))
                }
            }
            // A folder that takes no file takes no staged page either: the build fails, if at
            // all, where it would write one (a no-change build of a read-only site still works).
            markStaging(pending)
        }

        /// (Re)writes the marker with `files` as what may be left behind: whole or not at all (a
        /// marker cut short by a kill would name a folder for a file).
        private func markStaging(_ files: [String]) {
            try? AtomicFile.write(Data(files.joined(separator: "\n").utf8), to: marker)
        }

        /// Copies the content files (thumbnails) that are not in place yet, each atomically.
        /// Copies in the content files not already in place. A file of the right name and size
        /// is in place when `recorded` (the stamps of the last build's files, ``RenderedPages``)
        /// gives its hash for it, or when its bytes hash to it: a thumbnail damaged in place at
        /// its size is copied again. Returns the files checked by their bytes or copied, and the
        /// ones found in place by their stamps, for the next build's record.
        @discardableResult
        func copy(_ files: [OutputFile], recorded: (String) -> PageFingerprint? = { _ in nil }) throws
            -> (checked: [UnchangedPage], kept: [UnchangedPage])
        {
            let fileManager = FileManager.default
            var checked: [UnchangedPage] = []
            var kept: [UnchangedPage] = []
            for file in files {
                let source: URL?
                let size: Int64
                let sha256: String?
                let make: (@Sendable (URL) throws -> Void)?
                switch file.content {
                case .bytes: continue
                case .copy(let from, let bytes, let hash): (source, size, sha256, make) = (from, bytes, hash, nil)
                case .made(let bytes, let hash, let maker): (source, size, sha256, make) = (nil, bytes, hash, maker)
                }
                let target = writer.directory.appendingPathComponent(file.path)
                let fingerprint = sha256.flatMap(PageFingerprint.init(hexText:))
                if let fingerprint, recorded(file.path) == fingerprint {
                    kept.append(UnchangedPage(path: file.path, fingerprint: fingerprint))
                    continue
                }
                if let status = FileStatus(target), status.isRegularFile, status.size == size {
                    guard let sha256, let fingerprint else { continue }
                    if (try? FileDigest.sha256(of: target).hex) == sha256 {
                        checked.append(UnchangedPage(path: file.path, fingerprint: fingerprint))
                        continue
                    }
                }
                try writer.beforeWriting?(file.path)
                let existed = fileManager.fileExists(atPath: target.path)
                try fileManager.createDirectory(
                    at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                let temporary = AtomicFile.temporaryURL(for: target)
                do {
                    if let source { try fileManager.copyItem(at: source, to: temporary) } else { try make?(temporary) }
                    try AtomicFile.commit(temporary, to: target)
                } catch {
                    try? fileManager.removeItem(at: temporary)
                    throw error
                }
                if !existed { created.append(target) }
                if let fingerprint { checked.append(UnchangedPage(path: file.path, fingerprint: fingerprint)) }
                result.bytesWritten += size
                result.written += 1
            }
            return (checked, kept)
        }

        /// Stages pages: each one whose bytes differ from the file in place is written to a
        /// temporary name beside it and flushed.
        func stage(_ pages: [(path: String, bytes: [UInt8])]) throws {
            for (path, bytes) in pages {
                let staged = try stage(
                    path, count: bytes.count, same: { OutputWriter.same($0, bytes) },
                    write: { try Data(bytes).write(to: $0) })
                if staged {
                    result.bytesWritten += Int64(bytes.count)
                    result.written += 1
                }
            }
        }

        /// Stages one file unless `same` says the file in place holds its bytes; true when staged.
        private func stage(_ path: String, count: Int, same: (Data) -> Bool, write: (URL) throws -> Void) throws
            -> Bool
        {
            let fileManager = FileManager.default
            let target = writer.directory.appendingPathComponent(path)
            if FileStatus(target)?.size == Int64(count), let existing = fileManager.contents(atPath: target.path),
                same(existing)
            {
                return false
            }
            try writer.beforeWriting?(path)
            try fileManager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            let temporary = stagedTemporary(path: path)
            try write(temporary)
            try AtomicFile.synchronize(temporary)
            return true
        }

        /// Stages one file made of the parts `produce` hands to its sink, unless the file in place
        /// holds those bytes; true when staged. The parts are compared with the file in place as
        /// they come; from the first difference on they go to a temporary file, which starts
        /// with the bytes that were the same (copied from the file in place). Nothing but a part
        /// and a block of the file in place is held at a time.
        private func stageStreamed(_ path: String, _ produce: (([UInt8]) throws -> Void) async throws -> Void)
            async throws -> Bool
        {
            let target = writer.directory.appendingPathComponent(path)
            let existing = FileHandle(forReadingAtPath: target.path)
            defer { try? existing?.close() }
            var same: Int64 = 0
            var output: FileHandle?
            var temporary: URL?
            // The temporary file, begun with the `same` bytes of the file in place.
            func begin() throws -> FileHandle {
                try writer.beforeWriting?(path)
                // Staged first, so that a failure after the file exists removes it; created by a
                // write, so that a failure is the system's own error (a full disk, no permission).
                let url = stagedTemporary(path: path)
                try Data().write(to: url)
                temporary = url
                let handle = try FileHandle(forWritingTo: url)
                if same > 0, let prefix = FileHandle(forReadingAtPath: target.path) {
                    defer { try? prefix.close() }
                    var left = same
                    while left > 0, let block = try prefix.read(upToCount: Int(min(left, 1 << 20))), !block.isEmpty {
                        try handle.write(contentsOf: block)
                        left -= Int64(block.count)
                    }
                }
                return handle
            }
            try await produce { part in
                if output == nil, let existing {
                    let old = try existing.read(upToCount: part.count) ?? Data()
                    if OutputWriter.same(old, part) {
                        same += Int64(part.count)
                        return
                    }
                }
                if output == nil { output = try begin() }
                try output?.write(contentsOf: part)
            }
            if output == nil {
                // Every part matched: the same file, unless the one in place goes on.
                if let existing, (try existing.read(upToCount: 1) ?? Data()).isEmpty { return false }
                output = try begin()
            }
            try output?.close()
            if let temporary { try AtomicFile.synchronize(temporary) }
            return true
        }

        /// Stages the manifest (left alone when its bytes are those in place), renames everything
        /// staged into place, the manifest last, and removes the files of `previous` that
        /// `manifest` no longer lists.
        func finish(manifest: Manifest, previous: [String]?) async throws -> Result {
            try await finish(files: manifest.files, previous: previous) { sink in
                try await Manifest.encode(
                    files: manifest.files, photos: manifest.photos, version: manifest.version, record: { $0 },
                    into: sink)
            }
        }

        /// ``finish(manifest:previous:)`` for a manifest listing `files` whose bytes `encode` hands
        /// to its sink a part at a time (``Manifest/encode(files:photos:version:record:into:)``).
        func finish(
            files: [String], previous: [String]?, manifest encode: (([UInt8]) throws -> Void) async throws -> Void
        ) async throws -> Result {
            _ = try await stageStreamed(Manifest.fileName, encode)
            let fileManager = FileManager.default
            let (leaving, arriving) = Self.difference(from: (previous ?? []) + pending, to: files)
            // Until the marker goes, a kill leaves files the folder's list may not hold.
            markStaging(leaving + arriving)
            for (index, path) in staged.enumerated() {
                let (temporary, target) = paths(of: path, at: index)
                guard rename(temporary, target) == 0 else {
                    let reason = String(cString: strerror(errno))
                    abandon()
                    throw CocoaError(
                        .fileWriteUnknown,
                        userInfo: [NSLocalizedDescriptionKey: "cannot rename into \(target): \(reason)"])
                }
            }
            staged = []
            created = []
            result.files = files
            for stale in leaving {
                // Files only: a name that is a folder here (a list edited by hand, or damaged) is
                // not the build's to remove.
                let target = writer.directory.appendingPathComponent(stale)
                guard FileStatus(target)?.isDirectory != true else { continue }
                if (try? fileManager.removeItem(at: target)) != nil { result.removed += 1 }
            }
            try? FileManager.default.removeItem(at: marker)
            return result
        }

        /// The files of `before` not in `after` (that may be removed: no path out of the folder),
        /// and those of `after` not in `before`. Two sorted lists (a manifest's always is) are
        /// walked side by side: at 200,000 files, two sets of them were 20 MB of a build's peak.
        static func difference(from before: [String], to after: [String]) -> (leaving: [String], arriving: [String]) {
            func isSorted(_ list: [String]) -> Bool { zip(list, list.dropFirst()).allSatisfy { $0 < $1 } }
            guard isSorted(before), isSorted(after) else {
                let (old, new) = (Set(before), Set(after))
                return (
                    old.filter { !new.contains($0) && OutputWriter.isSafeRelativePath($0) }.sorted(),
                    after.filter { !old.contains($0) }
                )
            }
            var (leaving, arriving): ([String], [String]) = ([], [])
            var (i, j) = (0, 0)
            while i < before.count || j < after.count {
                if j == after.count || (i < before.count && before[i] < after[j]) {
                    if OutputWriter.isSafeRelativePath(before[i]) { leaving.append(before[i]) }
                    i += 1
                } else if i == before.count || after[j] < before[i] {
                    arriving.append(after[j])
                    j += 1
                } else {
                    (i, j) = (i + 1, j + 1)
                }
            }
            return (leaving, arriving)
        }

        /// A new temporary file beside the file at `path` in the folder, recorded as staged.
        private func stagedTemporary(path: String) -> URL {
            let temporary = paths(of: path, at: staged.count).temporary
            staged.append(path)
            return URL(fileURLWithPath: temporary, isDirectory: false)
        }

        /// The temporary name of the file named `name` staged `index`th: unique to this write and
        /// to the staging, so a path staged twice has two.
        private func temporaryName(of name: String, at index: Int) -> String {
            AtomicFile.temporaryName(for: name, prefix: temporaryPrefix + String(index) + "-")
        }

        /// The temporary file and the place of the file staged `index`th, at `path` in the
        /// folder, as absolute paths.
        private func paths(of path: String, at index: Int) -> (temporary: String, target: String) {
            let target = folder + "/" + path
            let slash = target.lastIndex(of: "/") ?? target.startIndex
            let name = String(target[target.index(after: slash)...])
            return (target[..<slash] + "/" + temporaryName(of: name, at: index), target)
        }

        /// Removes what this write staged and created.
        func abandon() {
            for (index, path) in staged.enumerated() {
                try? FileManager.default.removeItem(atPath: paths(of: path, at: index).temporary)
            }
            for target in created { try? FileManager.default.removeItem(at: target) }
            staged = []
            created = []
            // What a killed build left is still there: its list stays for the next build.
            if pending.isEmpty { try? FileManager.default.removeItem(at: marker) } else { markStaging(pending) }
        }
    }

    /// Byte equality with memcmp (comparing `Data` element by element costs more than the read).
    static func same(_ data: Data, _ bytes: [UInt8]) -> Bool {
        guard data.count == bytes.count else { return false }
        return data.withUnsafeBytes { old in
            bytes.withUnsafeBytes { new in
                guard let a = old.baseAddress, let b = new.baseAddress else { return true }
                return memcmp(a, b, new.count) == 0
            }
        }
    }

    /// Temporary files a killed build left anywhere in the output folder (pages are staged
    /// beside their targets: `photos/`, album folders, `images/`, `assets/`).
    private func removeLeftovers() {
        guard let walk = FileManager.default.enumerator(atPath: directory.path) else { return }
        while let relative = walk.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if AtomicFile.isTemporaryName(name) {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(relative))
            }
        }
    }

    /// A manifest is read from disk: never let one of its entries point outside the output folder.
    static func isSafeRelativePath(_ path: String) -> Bool {
        !path.isEmpty && !path.hasPrefix("/") && !path.split(separator: "/").contains("..")
    }
}
