import BuildStore
package import Foundation
import GalleryCore
import Loading

/// What the cache holds, for `gallerygen cache info`.
package struct CacheInfo: Sendable, Equatable {
    package var records: Int
    package var blobCount: Int
    package var blobBytes: Int64
    package var renditionSets: Int
    package var renditionBytes: Int64
    /// The longest a blob or a set has gone unused, as the time of its last use; nil for an
    /// empty cache.
    package var oldestUse: Date?

    package var totalBytes: Int64 { blobBytes + renditionBytes }
}

extension BuildCache {
    /// One thing eviction can remove: a blob (with the records naming it), a rendition set (with
    /// its record), or a file of the renditions folder that no set names (left by a killed run).
    private struct Entry {
        var files: [URL]
        var bytes: Int64
        var lastUsed: Double
        var kind: Kind

        enum Kind {
            case blob(sha256: String)
            case set(key: String)
            case strayRendition
        }
    }

    /// What the cache holds, for `gallerygen cache info`.
    package func info() async -> CacheInfo {
        await files.readRecords()
        var info = CacheInfo(
            records: files.recordCount, blobCount: 0, blobBytes: 0, renditionSets: 0, renditionBytes: 0)
        var oldest = Double.infinity
        for entry in await entries() {
            switch entry.kind {
            case .blob:
                info.blobCount += 1
                info.blobBytes += entry.bytes
            case .set:
                info.renditionSets += 1
                info.renditionBytes += entry.bytes
            case .strayRendition:
                info.renditionBytes += entry.bytes
            }
            if entry.lastUsed > 0 { oldest = min(oldest, entry.lastUsed) }
        }
        info.oldestUse = oldest.isFinite ? Date(timeIntervalSince1970: oldest) : nil
        return info
    }

    /// Removes least-recently-used blobs and rendition sets until the cache fits in `limit`
    /// bytes, never what the current build used; blobs no record names and rendition files no
    /// set names go first, whatever the limit. Returns the bytes removed and the bytes left,
    /// which stay over `limit` when what the build used alone is more. Writes the records
    /// afterwards.
    @discardableResult
    package func evict(toFit limit: Int64) async throws -> (removed: Int64, remaining: Int64) {
        await files.readRecords()
        let (usedBlobs, named) = files.blobsInUse()
        let usedSets = setsInUse
        var entries = await self.entries()
        var total = entries.reduce(0) { $0 + $1.bytes }
        var removed: Int64 = 0
        var removedSets: [String] = []
        entries.sort { ($0.lastUsed, $0.files.first?.path ?? "") < ($1.lastUsed, $1.files.first?.path ?? "") }
        for entry in entries {
            let orphan: Bool
            switch entry.kind {
            case .blob(let sha256):
                if usedBlobs.contains(sha256) { continue }
                orphan = !named.contains(sha256)
            case .set(let key):
                if usedSets.contains(key) { continue }
                orphan = false
            case .strayRendition:
                orphan = true
            }
            guard total > limit || orphan else { continue }
            for file in entry.files { try? FileManager.default.removeItem(at: file) }
            switch entry.kind {
            case .blob(let sha256): files.removeRecords(withBlob: sha256)
            case .set(let key): removedSets.append(key)
            case .strayRendition: break
            }
            total -= entry.bytes
            removed += entry.bytes
        }
        try await store.removeRenditionSets(removedSets)
        try await files.persist()
        return (removed, total)
    }

    private func entries() async -> [Entry] {
        let fileManager = FileManager.default
        let (blobs, renditions) = (files.blobs, files.renditions)
        let lastUse = files.blobLastUse()
        var entries: [Entry] = []
        for name in (try? fileManager.contentsOfDirectory(atPath: blobs.path)) ?? []
        where !AtomicFile.isTemporaryName(name) {
            let file = blobs.appendingPathComponent(name)
            entries.append(
                Entry(
                    files: [file], bytes: Self.size(of: file), lastUsed: lastUse[name] ?? 0, kind: .blob(sha256: name)))
        }
        // A store that cannot be read now tells nothing of the sets: their files are left alone.
        guard let sets = try? await store.renditionSetSummaries() else { return entries }
        var named: Set<String> = []
        for set in sets {
            named.formUnion(set.fileNames)
            entries.append(
                Entry(
                    files: set.fileNames.map { renditions.appendingPathComponent($0) }, bytes: set.bytes,
                    lastUsed: set.lastUsed, kind: .set(key: set.key)))
        }
        for name in (try? fileManager.contentsOfDirectory(atPath: renditions.path)) ?? []
        where !named.contains(name) && !AtomicFile.isTemporaryName(name) {
            let file = renditions.appendingPathComponent(name)
            entries.append(Entry(files: [file], bytes: Self.size(of: file), lastUsed: 0, kind: .strayRendition))
        }
        return entries
    }

    private static func size(of file: URL) -> Int64 {
        FileStatus(file)?.size ?? 0
    }
}
