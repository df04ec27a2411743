import BuildStore
package import Foundation
import GalleryCore
import GalleryJSON
package import Loading
import Synchronization

/// Everything a build remembers between runs, in one place: the cache folder CI keeps
/// (`CACHE/v1`), locked while a build uses it, and the build store in it (`store.sqlite`), opened
/// here and handed to the stages that keep records. Nuke's `ImagePipeline.Cache` is the model: a
/// newcomer finds every kind of record one hop from here.
///
/// | What | Kept by | Its table |
/// | --- | --- | --- |
/// | Originals (`blobs/`) and their URL records | ``files`` (Loading's `DiskCache`) | Loading's `URLRecordTable` |
/// | The hashes of the site's own photo files | ``digests`` (Loading's `LocalDigests`) | Loading's `LocalFileTable` |
/// | Thumbnail sets (`renditions/`), their eviction | `RenditionStore`, ``evict(toFit:)`` | ``RenditionSetTable`` |
/// | The pages the last build left | ``RenderedPages`` | ``RenderedPageTable`` |
/// | The published file list, the up-to-date check | `BuildSteps`, `BuildSession+UpToDate` | ``PublishedSiteTable`` |
///
/// Each stage owns its table (its record type, columns and migrations); ``schema`` puts them in
/// the one migrator. The build checkpoints the store once, where its writes end
/// (``checkpoint()``).
package final class BuildCache: Sendable {
    /// Every stage's tables.
    static let schema = StoreSchema([
        URLRecordTable.self, RenditionSetTable.self, RenderedPageTable.self, PublishedSiteTable.self,
        LocalFileTable.self,
    ])

    /// `CACHE/v1`.
    let root: URL
    let store: BuildStore
    /// Originals and their URL records.
    package let files: DiskCache
    /// The hashes of the site's own photo files, by stamp.
    package let digests: LocalDigests
    /// Why the store on disk could not be used, when it could not (a warning for the report).
    let storeProblem: String?
    private let lock: CacheLock
    /// Thumbnail sets the current build uses: never evicted.
    private let usedSets = Mutex<Set<String>>([])

    /// Opens (creating it if needed) the cache in `directory`: takes its lock, opens the store,
    /// and takes over the records of a cache written before the store.
    package init(directory: URL) throws {
        root = directory.appendingPathComponent("v1")
        try DiskCache.makeFolder(root)
        lock = try CacheLock(file: root.appendingPathComponent("lock"))
        let opening = BuildStore.open(at: root.appendingPathComponent(BuildStore.fileName), schema: Self.schema)
        store = opening.store
        storeProblem = opening.problem
        digests = LocalDigests(store: store)
        do {
            files = try DiskCache(root: root, store: store)
        } catch {
            store.close()
            lock.release()
            throw error
        }
        Self.takeOverLegacySets(files.legacySetFiles, in: files.renditions, into: store)
    }

    /// Marks a thumbnail set (by its key) as used by this build.
    func markSetUsed(_ key: String) {
        usedSets.withLock { _ = $0.insert(key) }
    }

    var setsInUse: Set<String> { usedSets.withLock { $0 } }

    /// Folds what the build wrote into the store's one file: once, where its writes end, so that
    /// the folder CI keeps holds one file. One that fails loses nothing (the log stays, and is
    /// read with the file).
    func checkpoint() async {
        try? await store.checkpoint()
    }

    /// Closes the store and releases the lock, so that another process (or a new BuildCache) can
    /// open the cache. Nothing is written after this.
    package func close() {
        store.close()
        lock.release()
    }

    /// Moves the thumbnail records of a cache written before the store (`renditions/<key>.json`)
    /// into the store, each with its file's time as its last use: the first build after an
    /// upgrade encodes nothing again. A record that cannot be read is dropped, as it always was
    /// (its set is made again when asked for).
    private static func takeOverLegacySets(_ names: [String], in folder: URL, into store: BuildStore) {
        guard !names.isEmpty else { return }
        var sets: [(key: String, record: RenditionSetRecord)] = []
        for name in names {
            let file = folder.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: file.path),
                let (image, stamps) = try? ProcessedImage.decodeRecord(data)
            else { continue }
            let recorded = zip(image.renditions, (stamps ?? "").split(separator: " ")).map { rendition, stamp in
                let parts = stamp.split(separator: ":")
                guard parts.count == 2, let modified = Int64(parts[0]), let inode = UInt64(parts[1]) else {
                    return FileStamp?.none
                }
                return FileStamp(size: rendition.byteCount, modified: modified, inode: inode)
            }
            let lastUsed = FileStatus(file).map { Double($0.modifiedNanoseconds) / 1e9 } ?? 0
            sets.append(
                (
                    String(name.dropLast(".json".count)),
                    RenditionSetRecord(image: image, stamps: recorded, lastUsed: lastUsed)
                ))
        }
        guard (try? store.saveRenditionSetsNow(sets)) != nil else { return }
        for name in names { try? FileManager.default.removeItem(at: folder.appendingPathComponent(name)) }
    }
}
