package import BuildStore
package import Foundation
import GalleryCore
import GalleryJSON
import Synchronization

/// The loader's part of the persistent cache a build (and CI, between runs) keeps:
/// `CACHE/v1/blobs/<sha256>` for originals, their URL records in the build store
/// (``URLRecordTable``), `CACHE/v1/tmp/` for transfers under way, and the folder thumbnails are
/// kept in (`CACHE/v1/renditions/`, whose records are the build's). The build's cache front
/// (GalleryBuild's `BuildCache`) takes the cache's lock and opens the store before it makes this.
///
/// Blobs are written before the records that name them; the records that changed are written in
/// one transaction. Making it removes leftovers of a killed run and takes over the URL records
/// of a cache written before the store (`index.json`). The URL records are read when a build
/// first needs them (``readRecords()``: a build with nothing to do never reads them), dropping
/// those whose blob is missing or has the wrong size. A blob whose modification time changed is
/// hashed again before use, so a blob damaged between builds is noticed and fetched anew.
package final class DiskCache: Sendable {
    package let root: URL
    package let blobs: URL
    /// ``blobs``' path, one string for every original in the cache (``Original/init(source:inBlobs:sha256:byteCount:contentType:validators:origin:)``).
    let blobFolder: String
    let temporary: URL
    package let renditions: URL
    /// The thumbnail records (`<set key>.json`) a cache written before the store left in
    /// ``renditions``, for the build's cache front to take over.
    package let legacySetFiles: [String]
    package let store: BuildStore
    /// The folders of the cache's files: one whose entries changed (a file added, removed or
    /// replaced) holds other files than the last build left.
    package var fileFolders: [URL] { [blobs, renditions] }
    private let state: Mutex<State>
    /// The one read of the records, shared by every caller that asks while it runs.
    private let reading = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        /// Whether the records have been read from the store: when a build first needs them, so
        /// that a build with nothing to do never reads 100,000 of them.
        var isLoaded = false
        var records: [String: CacheRecord] = [:]
        /// Blobs the current build uses: never evicted.
        var usedBlobs: Set<String> = []
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

    /// The cache's folders in `root` (`CACHE/v1`, made if needed), its URL records kept in
    /// `store`. The caller holds the cache's lock.
    package init(root: URL, store: BuildStore) throws {
        self.root = root
        self.store = store
        blobs = root.appendingPathComponent("blobs")
        blobFolder = blobs.path
        temporary = root.appendingPathComponent("tmp")
        renditions = root.appendingPathComponent("renditions")
        for folder in [root, blobs, temporary, renditions] { try Self.makeFolder(folder) }
        legacySetFiles = Self.removeLeftovers(temporary: temporary, renditions: renditions, blobs: blobs)
        Self.takeOverLegacyIndex(in: root, into: store)
        state = Mutex(State())
    }

    /// Makes one of the cache's own folders: a file in its place (left by a tool or a hand) is
    /// removed, not a reason to fail every build.
    package static func makeFolder(_ folder: URL) throws {
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

    /// Reads the URL records from the store, once, without holding a lock or a thread while it
    /// runs: a build calls it before it loads anything.
    package func readRecords() async {
        let task = reading.withLock { reading in
            if let reading { return reading }
            let task = Task { [store, blobs] in
                let loaded = await Self.loadRecords(from: store, blobs: blobs)
                self.install(loaded)
            }
            reading = task
            return task
        }
        await task.value
    }

    /// Takes `loaded` as the records, unless they were read already.
    private func install(_ loaded: ([String: CacheRecord], [String: FileStatus])) {
        state.withLock { state in
            guard !state.isLoaded else { return }
            (state.records, state.persisted, state.statusAtOpen) = (loaded.0, loaded.0, loaded.1)
            state.isLoaded = true
        }
    }

    /// Runs `body` on the state. The records are read by ``readRecords()`` first; code that did
    /// not ask (a test, a tool) has them read here, the one read made while the lock is held.
    private func withRecords<Value>(_ body: (inout State) -> Value) -> Value {
        if !state.withLock({ $0.isLoaded }) {
            install(Self.loadRecordsNow(from: store, blobs: blobs))
        }
        return state.withLock { state in body(&state) }
    }

    /// Moves the records of `index.json` (a cache written before the store) into the store, once:
    /// the first build after an upgrade revalidates what the last one downloaded instead of
    /// downloading it again. An index that cannot be read is dropped, as it always was.
    private static func takeOverLegacyIndex(in root: URL, into store: BuildStore) {
        let file = root.appendingPathComponent(LegacyIndex.fileName)
        guard let data = FileManager.default.contents(atPath: file.path) else { return }
        if let index = try? JSONDecoder().decode(LegacyIndex.self, from: data), index.version == 1 {
            guard (try? store.saveNow(urlRecords: index.records)) != nil else { return }
        }
        try? FileManager.default.removeItem(at: file)
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

    /// The record of `url`: from the records when they have been read, else from the store alone
    /// (the up-to-date check asks for the feed's, and must not read 100,000 records for it).
    package func storedRecord(for url: String) async -> CacheRecord? {
        if state.withLock({ $0.isLoaded }) { return withRecords { $0.records[url] } }
        return try? await store.urlRecord(for: url)
    }

    /// Writes the records that changed since they were read or last written (and removes those
    /// that went), in one transaction; nothing when none did.
    package func persist() async throws {
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
        guard let change else { return }
        do {
            try await store.save(urlRecords: change.records, changedSince: change.before, removing: change.removed)
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

    /// What eviction must keep of the blobs: those this build used, and those some record names.
    package func blobsInUse() -> (used: Set<String>, named: Set<String>) {
        withRecords { state in (state.usedBlobs, Set(state.records.values.map(\.sha256))) }
    }

    /// Last use per blob: the latest of the records naming it.
    package func blobLastUse() -> [String: Double] {
        withRecords { state in
            state.records.values.reduce(into: [:]) { result, record in
                result[record.sha256] = max(result[record.sha256] ?? 0, record.lastUsed)
            }
        }
    }

    /// Forgets the records naming a blob eviction removed.
    package func removeRecords(withBlob sha256: String) {
        withRecords { state in state.records = state.records.filter { $0.value.sha256 != sha256 } }
    }

    // MARK: Start-up

    /// Removes what a killed run left (transfers, temporary files); returns the names of the
    /// thumbnail records a cache written before the store left in `renditions/`, found on the
    /// way (the one listing of that folder at start-up).
    private static func removeLeftovers(temporary: URL, renditions: URL, blobs: URL) -> [String] {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: temporary.path)) ?? [] {
            try? fileManager.removeItem(at: temporary.appendingPathComponent(name))
        }
        var legacySetFiles: [String] = []
        for folder in [renditions, blobs] {
            for name in (try? fileManager.contentsOfDirectory(atPath: folder.path)) ?? [] {
                if AtomicFile.isTemporaryName(name) {
                    try? fileManager.removeItem(at: folder.appendingPathComponent(name))
                } else if folder == renditions, name.hasSuffix(".json") {
                    legacySetFiles.append(name)
                }
            }
        }
        return legacySetFiles
    }

    /// The store's records whose blob exists with the recorded size, and the status of each
    /// blob; a store that cannot be read is treated as empty (everything is fetched again), never
    /// trusted in part.
    private static func loadRecords(from store: BuildStore, blobs: URL) async -> (
        [String: CacheRecord], [String: FileStatus]
    ) {
        checked((try? await store.urlRecords()) ?? [], blobs: blobs)
    }

    private static func loadRecordsNow(from store: BuildStore, blobs: URL) -> (
        [String: CacheRecord], [String: FileStatus]
    ) {
        checked((try? store.urlRecordsNow()) ?? [], blobs: blobs)
    }

    private static func checked(_ stored: [CacheRecord], blobs: URL) -> ([String: CacheRecord], [String: FileStatus]) {
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
