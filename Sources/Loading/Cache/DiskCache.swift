package import BuildStore
package import Foundation
import GalleryCore
import GalleryJSON
import Synchronization

/// The persistent cache a build (and CI, between runs) keeps: `CACHE/v1/blobs/<sha256>` for
/// originals, `CACHE/v1/renditions/` for thumbnails, the records of both in the build store
/// (`CACHE/v1/store.sqlite`, ``BuildStore``), `CACHE/v1/tmp/` for transfers under way, and a
/// lock.
///
/// Blobs are written before the records that name them; the records that changed are written in
/// one transaction. Opening the cache takes the lock, removes leftovers of a killed run and takes
/// over the records of a cache written before the store (`index.json`, `renditions/*.json`). The
/// URL records are read on first use (a build with nothing to do never reads them), dropping
/// those whose blob is missing or has the wrong size. A blob whose modification time changed is
/// hashed again before use, so a blob damaged between builds is noticed and fetched anew.
package final class DiskCache: Sendable {
    package let root: URL
    let blobs: URL
    /// ``blobs``' path, one string for every original in the cache (``Original/init(source:inBlobs:sha256:byteCount:contentType:validators:origin:)``).
    let blobFolder: String
    let temporary: URL
    package let renditions: URL
    private let store: BuildStore
    /// The build store the records are kept in, for the other stages' records.
    package var buildStore: BuildStore { store }
    /// The folders of the cache's files: one whose entries changed (a file added, removed or
    /// replaced) holds other files than the last build left.
    package var fileFolders: [URL] { [blobs, renditions] }
    /// Why the store on disk could not be used, when it could not (a warning for the report).
    package let storeProblem: String?
    private let lock: CacheLock
    private let state: Mutex<State>

    private struct State {
        /// Whether the records have been read from the store: on first use, so that a build
        /// with nothing to do (``BuildStore/upToDate``) never reads 100,000 of them.
        var isLoaded = false
        var records: [String: CacheRecord] = [:]
        /// Blobs the current build uses: never evicted.
        var usedBlobs: Set<String> = []
        /// Rendition sets the current build uses: never evicted.
        var usedRenditionSets: Set<String> = []
        /// The records as the store holds them; nil while they are written, and after a write
        /// that failed (so the next persist writes them all again).
        var persisted: [String: CacheRecord]? = [:]
        /// Blob sizes and times seen when the records were read, so that the first use of each in
        /// a build needs no second stat(2); dropped when the build ends (``persist()``).
        var statusAtOpen: [String: FileStatus] = [:]
    }

    /// The URL records of a cache written before the build store, read once to take them over.
    struct LegacyIndex: Decodable {
        static let fileName = "index.json"
        var version: Int
        var records: [CacheRecord]
    }

    /// Opens (creating it if needed) the cache in `directory`.
    package init(directory: URL) throws {
        root = directory.appendingPathComponent("v1")
        blobs = root.appendingPathComponent("blobs")
        blobFolder = blobs.path
        temporary = root.appendingPathComponent("tmp")
        renditions = root.appendingPathComponent("renditions")
        for folder in [root, blobs, temporary, renditions] {
            // The cache's own folders: a file in the place of one (left by a tool or a hand) is
            // removed, not a reason to fail every build.
            if let status = FileStatus(folder), !status.isDirectory {
                try? FileManager.default.removeItem(at: folder)
            }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw LoadingError(
                    .cache, url: folder.path,
                    "cannot create this folder of the cache (is something in its way, or the disk read-only?); "
                        + "remove it, or set `cache:` in gallery.yml to another folder",
                    underlying: error as NSError)
            }
        }
        lock = try CacheLock(file: root.appendingPathComponent("lock"))
        let legacySets = Self.removeLeftovers(temporary: temporary, renditions: renditions, blobs: blobs)
        let opening = BuildStore.open(at: root.appendingPathComponent(BuildStore.fileName))
        store = opening.store
        storeProblem = opening.problem
        Self.takeOverLegacyIndex(in: root, into: store)
        Self.takeOverLegacySets(legacySets, in: renditions, into: store)
        state = Mutex(State())
    }

    /// Runs `body` on the state, with the records read from the store first if they are not yet.
    private func withRecords<Value>(_ body: (inout State) -> Value) -> Value {
        state.withLock { state in
            if !state.isLoaded {
                let (records, status) = Self.loadRecords(from: store, blobs: blobs)
                (state.records, state.persisted, state.statusAtOpen) = (records, records, status)
                state.isLoaded = true
            }
            return body(&state)
        }
    }

    /// Moves the records of `index.json` (a cache written before the store) into the store, once:
    /// the first build after an upgrade revalidates what the last one downloaded instead of
    /// downloading it again. An index that cannot be read is dropped, as it always was.
    private static func takeOverLegacyIndex(in root: URL, into store: BuildStore) {
        let file = root.appendingPathComponent(LegacyIndex.fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return }
        if let index = try? JSONDecoder().decode(LegacyIndex.self, from: data), index.version == 1 {
            guard (try? store.save(urlRecords: index.records, removing: [])) != nil else { return }
        }
        try? FileManager.default.removeItem(at: file)
    }

    /// Moves the rendition records of a cache written before the store (`renditions/<key>.json`)
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

    /// Releases the lock, so that another process (or a new DiskCache) can open the cache.
    /// Nothing is written after this.
    package func close() {
        store.close()
        lock.release()
    }

    // MARK: Records

    func record(for url: String) -> CacheRecord? {
        withRecords { $0.records[url] }
    }

    func store(_ record: CacheRecord) {
        withRecords { $0.records[record.url] = record }
    }

    func removeRecord(for url: String) {
        withRecords { _ = $0.records.removeValue(forKey: url) }
    }

    /// Until when (seconds since 1970) the records of all `urls` stay fresh; nil when one has
    /// no record or is not fresh by explicit lifetime.
    package func freshUntil(of urls: some Sequence<String>) -> Double? {
        withRecords { state in
            var until = Double.infinity
            for url in urls {
                guard let time = state.records[url]?.freshUntil() else { return nil }
                until = min(until, time)
            }
            return until
        }
    }

    package var recordCount: Int { withRecords { $0.records.count } }

    /// Writes the records that changed since they were read or last written (and removes those
    /// that went), in one transaction; nothing when none did.
    package func persist() throws {
        // What is written is taken with the records it is measured against, under one lock: a
        // record stored while the write runs stays unwritten, and is found by the next persist.
        let change: (records: [String: CacheRecord], before: [String: CacheRecord]?, removed: [String])? =
            state.withLock { state in
                state.statusAtOpen = [:]
                // Never read: nothing changed.
                guard state.isLoaded, state.records != state.persisted else { return nil }
                let before = state.persisted
                // Not known to be in the store until written.
                state.persisted = nil
                let removed = (before ?? [:]).keys.filter { state.records[$0] == nil }
                return (state.records, before, removed)
            }
        // The one checkpoint of a build, where its writes end: every stage's rows (URL records,
        // thumbnail sets, pages, the published list) are folded into the file, so the folder CI
        // keeps holds one file. One that fails loses nothing (the log stays, and is read with
        // the file).
        defer { try? store.checkpoint() }
        guard let change else { return }
        do {
            try store.save(urlRecords: change.records, changedSince: change.before, removing: change.removed)
        } catch {
            throw LoadingError(
                .cache, url: store.file?.path ?? "the cache's store", "cannot write the URL records",
                underlying: error as NSError)
        }
        state.withLock { $0.persisted = change.records }
    }

    // MARK: Blobs

    func blobURL(for sha256: String) -> URL {
        URL(fileURLWithPath: blobPath(for: sha256), isDirectory: false)
    }

    private func blobPath(for sha256: String) -> String {
        Self.blobPath(for: sha256, in: blobFolder)
    }

    /// The blob of `sha256` in the blobs folder at `folder` (``blobFolder``).
    private static func blobPath(for sha256: String, in folder: String) -> String {
        folder + "/" + sha256
    }

    /// A new file name for a transfer under way.
    func temporaryFile() -> URL {
        temporary.appendingPathComponent("\(UUID().uuidString).part")
    }

    /// Moves a complete, verified transfer of `size` bytes into place as the blob of `sha256`.
    /// An existing blob that still hashes to its name is kept (its mtime is other records'
    /// proof, and identical bytes from many URLs would otherwise make each of them hash it
    /// again); a damaged one, of any size, is replaced.
    func commitBlob(_ file: URL, sha256: String, size: Int64) throws -> URL {
        let target = blobURL(for: sha256)
        withRecords { _ = $0.statusAtOpen.removeValue(forKey: sha256) }
        if FileStatus(target)?.size == size, (try? FileDigest.sha256(of: target).hex) == sha256 {
            try? FileManager.default.removeItem(at: file)
        } else {
            try AtomicFile.commit(file, to: target)
        }
        return target
    }

    /// Forgets a blob found damaged (its bytes no longer hash to its name): the file and every
    /// record naming it go, so that the next load of those URLs downloads them whole.
    func discardBlob(_ sha256: String) {
        withRecords { state in
            _ = state.statusAtOpen.removeValue(forKey: sha256)
            state.records = state.records.filter { $0.value.sha256 != sha256 }
        }
        try? FileManager.default.removeItem(atPath: blobPath(for: sha256))
    }

    /// The modification time of the blob of `record` if it is there and still holds the
    /// recorded bytes (nil if not): the time a refreshed record keeps, with no second look at
    /// the file.
    func verifiedBlob(of record: CacheRecord) -> Double? {
        let path = blobPath(for: record.sha256)
        let seen = withRecords { $0.statusAtOpen[record.sha256] }
        guard let status = seen ?? FileStatus(path: path) else { return nil }
        guard status.size == record.size else {
            // Truncated or grown: the name says what it should hold, so it can only be damaged.
            // Removed (unless a good copy has just taken its place), so that the next download
            // can take its place.
            withRecords { _ = $0.statusAtOpen.removeValue(forKey: record.sha256) }
            if let now = FileStatus(path: path), now.size != record.size {
                try? FileManager.default.removeItem(atPath: path)
            }
            return nil
        }
        let modified = status.modified
        if modified != record.blobModified {
            // A file URL is made only here: making one for each of 100,000 copies asked about
            // took a tenth of a second of a --refresh.
            let blob = URL(fileURLWithPath: path, isDirectory: false)
            guard let digest = try? FileDigest.sha256(of: blob), digest.hex == record.sha256 else {
                withRecords { _ = $0.statusAtOpen.removeValue(forKey: record.sha256) }
                try? FileManager.default.removeItem(at: blob)
                return nil
            }
            var refreshed = record
            refreshed.blobModified = modified
            store(refreshed)
        }
        return modified
    }

    static func modificationTime(of file: URL) -> Double {
        FileStatus(file)?.modified ?? 0
    }

    /// Marks a blob as used by this build: it will not be evicted, and it counts as recently used.
    /// The last-use time moves in steps of an hour (plenty for least-recently-used eviction), so
    /// that an unchanged cache needs no new index.
    func markUsed(_ record: CacheRecord, at now: Date) {
        withRecords { state in
            state.usedBlobs.insert(record.sha256)
            if let lastUsed = state.records[record.url]?.lastUsed, now.timeIntervalSince1970 - lastUsed >= 3600 {
                state.records[record.url]?.lastUsed = now.timeIntervalSince1970
            }
        }
    }

    /// Marks a rendition set (by its key) as used by this build.
    package func markRenditionSetUsed(_ name: String) {
        state.withLock { _ = $0.usedRenditionSets.insert(name) }
    }

    /// What eviction must keep: blobs and rendition sets this build used, and blobs some record names.
    func usedSets() -> (blobs: Set<String>, sets: Set<String>, named: Set<String>) {
        withRecords { state in (state.usedBlobs, state.usedRenditionSets, Set(state.records.values.map(\.sha256))) }
    }

    /// Last use per blob: the latest of the records naming it.
    func blobLastUse() -> [String: Double] {
        withRecords { state in
            state.records.values.reduce(into: [:]) { result, record in
                result[record.sha256] = max(result[record.sha256] ?? 0, record.lastUsed)
            }
        }
    }

    func removeRecords(withBlob sha256: String) {
        withRecords { state in state.records = state.records.filter { $0.value.sha256 != sha256 } }
    }

    // MARK: Start-up

    /// Removes what a killed run left (transfers, temporary files); returns the names of the
    /// rendition records of a cache written before the store, found on the way.
    private static func removeLeftovers(temporary: URL, renditions: URL, blobs: URL) -> [String] {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: temporary.path)) ?? [] {
            try? fileManager.removeItem(at: temporary.appendingPathComponent(name))
        }
        var legacySets: [String] = []
        for folder in [renditions, blobs] {
            for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] {
                if AtomicFile.isTemporaryName(name) {
                    try? fileManager.removeItem(at: folder.appendingPathComponent(name))
                } else if folder == renditions, name.hasSuffix(".json") {
                    legacySets.append(name)
                }
            }
        }
        return legacySets
    }

    /// The store's records whose blob exists with the recorded size, and the status of each
    /// blob; a store that cannot be read is treated as empty (everything is fetched again), never
    /// trusted in part.
    private static func loadRecords(from store: BuildStore, blobs: URL) -> ([String: CacheRecord], [String: FileStatus])
    {
        guard let stored = try? store.urlRecords() else { return ([:], [:]) }
        var records: [String: CacheRecord] = [:]
        records.reserveCapacity(stored.count)
        var status: [String: FileStatus] = [:]
        let folder = blobs.path
        for record in stored {
            if status[record.sha256] == nil, let blob = FileStatus(path: blobPath(for: record.sha256, in: folder)) {
                status[record.sha256] = blob
            }
            if status[record.sha256]?.size == record.size { records[record.url] = record }
        }
        return (records, status)
    }
}
