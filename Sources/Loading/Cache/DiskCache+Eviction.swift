import Foundation
import GalleryCore
import GalleryJSON

/// What the cache holds, for `gallerygen cache info`.
package struct CacheInfo: Sendable, Equatable {
    package var records: Int
    package var blobCount: Int
    package var blobBytes: Int64
    package var renditionSets: Int
    package var renditionBytes: Int64

    package var totalBytes: Int64 { blobBytes + renditionBytes }
}

extension DiskCache {
    /// One thing eviction can remove: a blob (with the records naming it) or a rendition set.
    private struct Entry {
        var files: [URL]
        var bytes: Int64
        var lastUsed: Double
        var blobSHA: String?
    }

    package func info() -> CacheInfo {
        let entries = self.entries()
        let blobEntries = entries.filter { $0.blobSHA != nil }
        return CacheInfo(
            records: recordCount,
            blobCount: blobEntries.count,
            blobBytes: blobEntries.reduce(0) { $0 + $1.bytes },
            renditionSets: entries.count - blobEntries.count,
            renditionBytes: entries.filter { $0.blobSHA == nil }.reduce(0) { $0 + $1.bytes }
        )
    }

    /// Removes least-recently-used blobs and rendition sets until the cache fits in `limit`
    /// bytes, never what the current build used; blobs no record names go first. Returns the
    /// bytes removed and the bytes left, which stay over `limit` when what the build used alone
    /// is more. Writes the index afterwards.
    @discardableResult
    package func evict(toFit limit: Int64) throws -> (removed: Int64, remaining: Int64) {
        let (usedBlobs, usedSets, named) = self.usedSets()
        var entries = self.entries()
        var total = entries.reduce(0) { $0 + $1.bytes }
        var removed: Int64 = 0
        entries.sort { ($0.lastUsed, $0.files.first?.path ?? "") < ($1.lastUsed, $1.files.first?.path ?? "") }
        for entry in entries {
            let orphan = entry.blobSHA.map { !named.contains($0) } ?? false
            guard total > limit || orphan else { break }
            if let sha = entry.blobSHA, usedBlobs.contains(sha) { continue }
            if entry.blobSHA == nil, let name = entry.files.first?.lastPathComponent, usedSets.contains(name) {
                continue
            }
            for file in entry.files { try? FileManager.default.removeItem(at: file) }
            if let sha = entry.blobSHA { removeRecords(withBlob: sha) }
            total -= entry.bytes
            removed += entry.bytes
        }
        try persist()
        return (removed, total)
    }

    private func entries() -> [Entry] {
        let fileManager = FileManager.default
        let lastUse = blobLastUse()
        var entries: [Entry] = []
        for name in (try? fileManager.contentsOfDirectory(atPath: blobs.path)) ?? []
        where !AtomicFile.isTemporaryName(name) {
            let file = blobs.appendingPathComponent(name)
            entries.append(
                Entry(files: [file], bytes: Self.size(of: file), lastUsed: lastUse[name] ?? 0, blobSHA: name))
        }
        for name in (try? fileManager.contentsOfDirectory(atPath: renditions.path)) ?? [] where name.hasSuffix(".json")
        {
            let record = renditions.appendingPathComponent(name)
            var files = [record]
            if let data = fileManager.contents(atPath: record.path),
                let image = try? ProcessedImage.decode(data)
            {
                files += image.renditions.map {
                    renditions.appendingPathComponent($0.fileName)
                }
            }
            entries.append(
                Entry(
                    files: files, bytes: files.reduce(0) { $0 + Self.size(of: $1) },
                    lastUsed: Self.modificationTime(of: record), blobSHA: nil)
            )
        }
        return entries
    }

    private static func size(of file: URL) -> Int64 {
        FileStatus(file)?.size ?? 0
    }
}
