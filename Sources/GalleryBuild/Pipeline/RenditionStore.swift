import BuildStore
import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import Synchronization
import Video

/// The rendition half of the disk cache: thumbnails in `CACHE/v1/renditions/`, named by the
/// original's content and the recipe, and a record per set in the build store listing them
/// (``RenditionSetRecord``). An original already processed with this recipe, by any build, is
/// not decoded again; identical bytes from different URLs are processed once.
final class RenditionStore: Sendable {
    let directory: URL
    let recipe: ImageRecipe
    let processor: ImageProcessor
    let pool: ImagingPool
    private let inFlight = TaskCoalescer<String, Outcome>()
    /// Sets found in the cache by this build, by key.
    private let known = Mutex<[String: ProcessedImage]>([:])
    private let cache: BuildCache
    private let store: BuildStore
    /// Sets used by this build whose last use the store has as over an hour ago.
    private let staleUses = Mutex<[String]>([])
    /// Records read ahead for the photos the cache has (``prefetch(_:)``), by set key.
    private let prefetched = Mutex<[String: RenditionSetRecord]>([:])
    /// Records to write again (new stamps, hashes taken once), written with the uses.
    private let rewrites = Mutex<[(key: String, record: RenditionSetRecord)]>([])
    /// The published site to take sets from before making them (`seed:`).
    private let seed: SiteSeed?
    /// The remote cache tier: asked before making a set, told of every set made.
    let remote: RemoteCache?
    /// The decimals of a photo's place the remote tier may hold (`location:`); nil: none.
    let locationPlaces: Int?
    /// The site's `video:` settings.
    let videoSettings: VideoSettings
    /// When a set was last used is read from it.
    let clock: WallClock
    /// ffmpeg and ffprobe, looked for when the first clip is met (a site of photos never runs them).
    let locatedTranscoder = Mutex<VideoTranscoder.Located?>(nil)
    /// The footage transcoded so far, for the progress display.
    let footage: FootageMeter

    struct Outcome: Sendable {
        var image: ProcessedImage
        /// The original the renditions are of: the one asked about, or its fresh copy when the
        /// cached bytes were found damaged.
        var original: Original?
        /// False when the renditions came from the cache.
        var wasProcessed: Bool
        /// What libvips said about the original while making them.
        var warnings: [String] = []
    }

    init(
        cache: BuildCache, processor: ImageProcessor, pool: ImagingPool, widths: [Int],
        formats: [ImageFormat],
        quality: Int, effort: Int, seed: SiteSeed? = nil, remote: RemoteCache? = nil, locationPlaces: Int? = nil,
        videoSettings: VideoSettings = VideoSettings(), clock: WallClock = .system,
        footageChanged: @escaping @Sendable (_ done: Double, _ total: Double) -> Void = { _, _ in }
    ) {
        self.videoSettings = videoSettings
        self.clock = clock
        self.footage = FootageMeter(changed: footageChanged)
        self.cache = cache
        self.store = cache.store
        self.seed = seed
        self.remote = remote
        self.locationPlaces = locationPlaces
        self.directory = cache.files.renditions
        self.processor = processor
        self.pool = pool
        self.recipe = ImageRecipe(
            widths: widths,
            formats: formats,
            quality: quality,
            effort: effort,
            encoderVersion: processor.libraryVersion
        )
    }

    /// Reads the records of the sets of `keys` (``usedSetKey(of:)``) in one go, for
    /// ``availableRenditions(of:key:)``: a rebuild asks for all its photos' sets at once, not one
    /// query per photo.
    func prefetch(keys: [String]) async {
        let records = (try? await store.renditionSets(keys: Array(Set(keys)))) ?? [:]
        prefetched.withLock { $0.merge(records) { _, new in new } }
    }

    /// The renditions of `original` (whose set's key is `key`) when the cache has them (known to
    /// this build, or read ahead by ``prefetch(keys:)``): no task, no wait, no query.
    func availableRenditions(of original: Original, key: String) -> Outcome? {
        if let outcome = knownOutcome(key: key) { return outcome }
        guard let record = prefetched.withLock({ $0[key] }) else { return nil }
        return checkedOutcome(key: key, record: record)
    }

    /// The renditions of `original`, from the cache or made now. An original the cache served
    /// is hashed before it is decoded (its mtime proves nothing against a flipped byte); when it
    /// no longer matches, `freshCopy` replaces it and the renditions are made from that.
    ///
    /// A set is shared by every photo with these bytes, and so are its messages: libvips' words
    /// name "the image", and each photo puts its own name in front of them.
    func renditions(
        of original: Original, freshCopy: @escaping @Sendable (Original) async throws -> Original
    ) async throws -> Outcome {
        let key = usedSetKey(of: original)
        return try await inFlight.value(for: key) { [self] in
            if let cached = await cachedOutcome(key: key) { return cached }
            if let shared = await sharedOutcome(of: original, key: key) { return shared }
            if let seeded = await seededOutcome(of: original, key: key) { return seeded }
            var original = original
            var setKey = key
            let needsFreshCopy: Bool
            switch original.origin {
            case .downloaded, .local:
                needsFreshCopy = false
            case .seeded, .shared:
                // Known by its hash alone, and no thumbnails were found: fetch the bytes.
                needsFreshCopy = true
            case .revalidated, .fresh, .stale, .offline:
                let file = original.file
                let actual = try await pool.run { try FileDigest.sha256(of: file).hex }
                needsFreshCopy = actual != original.sha256
            }
            if needsFreshCopy {
                let expected = original.sha256
                original = try await freshCopy(original)
                if original.sha256 != expected {
                    // The source changed since it was cached or published: other bytes, another set.
                    setKey = usedSetKey(of: original)
                    if var outcome = await cachedOutcome(key: setKey) {
                        outcome.original = original
                        return outcome
                    }
                }
            }
            let stems = stems(of: original.sha256)
            let file = original.file
            let directory = directory
            if Self.isClip(file) {
                let (image, warnings) = try await clipSet(of: original, stems: stems)
                try await writeRecord(image, key: setKey)
                await share(image, key: setKey)
                return Outcome(image: image, original: original, wasProcessed: true, warnings: warnings)
            }
            let (image, warnings) = try await pool.run { [processor, stems] in
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let (image, warnings) = try processor.process(file, named: "the image", stems: stems, into: directory)
                return (try Self.hashed(image, in: directory), warnings)
            }
            // The record is written after the files it names.
            try await writeRecord(image, key: setKey)
            await share(image, key: setKey)
            return Outcome(image: image, original: original, wasProcessed: true, warnings: warnings)
        }
    }

    /// The file names' stems of the set of `originalSHA256` (one per format).
    func stems(of originalSHA256: String) -> [ImageFormat: String] {
        Self.stems(formats: recipe.formats) { recipe.fileKeyMaterial(originalSHA256: originalSHA256, format: $0) }
    }

    /// One file name stem per format: 16 hex digits of the hash of what names its files (a
    /// recipe's key material), for a photo's thumbnails and a clip's videos alike.
    static func stems(formats: [ImageFormat], material: (ImageFormat) -> String) -> [ImageFormat: String] {
        Dictionary(uniqueKeysWithValues: formats.map { ($0, String(sha256Hex(of: material($0)).prefix(16))) })
    }

    /// The set taken from the published site (`seed:`), verified, recorded as if made here.
    private func seededOutcome(of original: Original, key: String) async -> Outcome? {
        guard let seed,
            let image = await seed.image(
                originalSHA256: original.sha256, stems: stems(of: original.sha256), widths: recipe.widths,
                into: directory, video: { videoCheck(of: original.sha256) }),
            (try? await writeRecord(image, key: key)) != nil
        else { return nil }
        seed.noteAdopted()
        remember(image, key: key)
        return Outcome(image: image, original: original, wasProcessed: false)
    }

    /// A set this build found or took, for its later uses.
    func remember(_ image: ProcessedImage, key: String) {
        known.withLock { $0[key] = image }
    }

    /// Lets go of the sets this build found or made, once its photos are processed (the pages
    /// and the manifest need only the outcomes): a set asked for again is read from the cache.
    func forgetFinished() async {
        await inFlight.forgetFinished()
        known.withLock { $0 = [:] }
        prefetched.withLock { $0 = [:] }
    }

    /// Waits for encodes under way (libvips cannot be interrupted), so that none is cut short.
    func drain() async {
        await inFlight.cancelAndDrain()
    }

    /// The file in the cache that holds a rendition.
    func file(of rendition: Rendition) -> URL {
        URL(fileURLWithPath: directory.path + "/" + rendition.fileName, isDirectory: false)
    }

    /// The key of `original`'s rendition set, marked as used by this build (never evicted by it).
    func usedSetKey(of original: Original) -> String {
        let key = setKey(ofOriginal: original.sha256)
        cache.markSetUsed(key)
        return key
    }

    /// The key of the set of an original with this SHA-256 (not marked as used).
    func setKey(ofOriginal sha256: String) -> String {
        String(sha256Hex(of: recipe.setKeyMaterial(originalSHA256: sha256)).prefix(32))
    }

    /// A set found in the cache, once per build: the record is read and checked on first use.
    func cachedOutcome(key: String) async -> Outcome? {
        if let outcome = knownOutcome(key: key) { return outcome }
        let record =
            if let record = prefetched.withLock({ $0[key] }) {
                record
            } else {
                try? await store.renditionSet(key: key)
            }
        return record.flatMap { checkedOutcome(key: key, record: $0) }
    }

    private func knownOutcome(key: String) -> Outcome? {
        known.withLock { $0[key] }.map { Outcome(image: $0, wasProcessed: false) }
    }

    private func checkedOutcome(key: String, record: RenditionSetRecord) -> Outcome? {
        guard let image = checkedImage(key: key, record: record) else { return nil }
        remember(image, key: key)
        return Outcome(image: image, wasProcessed: false)
    }

    /// What the originals of sets made before gallerygen read metadata say (`originals`: a set's
    /// key and a file with its original's bytes), read from their headers (no pixel decoded),
    /// recorded with their sets, and returned by key with what was wrong with each.
    func readMetadata(of originals: [(key: String, file: URL)]) async -> [String: (PhotoMetadata, [String])] {
        let processor = processor
        var found: [String: (PhotoMetadata, [String])] = [:]
        await withTaskGroup(of: (String, (PhotoMetadata, [String])?).self) { group in
            var running = 0
            for (key, file) in originals {
                if running >= 2 * ProcessInfo.processInfo.activeProcessorCount, let (key, read) = await group.next() {
                    found[key] = read
                    running -= 1
                }
                running += 1
                group.addTask { [pool] in
                    let header = try? await pool.run { try processor.header(of: file, name: "the image") }
                    return (key, header.map { ($0.metadata, $0.metadataWarnings) })
                }
            }
            for await (key, read) in group { found[key] = read }
        }
        known.withLock { known in
            for (key, (metadata, _)) in found { known[key]?.metadata = metadata }
        }
        try? await store.saveMetadata(found.map { ($0.key, $0.value.0) })
        return found
    }

    /// Writes what this build learned of the sets it used: their last use, for least-recently-used
    /// eviction (in steps of an hour, like the URL records': plenty for LRU, and no write per
    /// use), and the records whose files it found moved or hashed.
    func persistUses() async throws {
        let keys = staleUses.withLock { keys in
            defer { keys = [] }
            return keys
        }
        let records = rewrites.withLock { records in
            defer { records = [] }
            return records
        }
        try await store.saveRenditionSets(records)
        try await store.touchRenditionSets(keys, at: clock.now.timeIntervalSince1970)
    }

    /// The set's record, written after the files it names, with their stamps as the files are
    /// now: a file whose stamp has moved since is hashed before it is used again.
    func writeRecord(_ image: ProcessedImage, key: String) async throws {
        try await store.saveRenditionSets([(key, record(of: image))])
    }

    private func record(of image: ProcessedImage) -> RenditionSetRecord {
        let stamps = image.renditions.map { FileStatus(file(of: $0)).map(FileStamp.init) }
        return RenditionSetRecord(image: image, stamps: stamps, lastUsed: clock.now.timeIntervalSince1970)
    }

    /// `record`'s image when its every file is present with its recorded size, and with its
    /// recorded stamp (which holds that size) or else its recorded hash (a file damaged in place
    /// at the same size is caught here); anything less is a miss, and the set is made again. A
    /// record from before renditions were hashed gets its hashes once, from its files.
    private func checkedImage(key: String, record: RenditionSetRecord) -> ProcessedImage? {
        // A clip's videos made with other `video:` settings or another ffmpeg are made again
        // (without ffmpeg, the ones there are are shown).
        if let video = record.image.video, let transcoder, video.recipe != transcoder.recipe.fingerprint {
            return nil
        }
        var image = record.image
        var stamps: [FileStamp] = []
        for rendition in image.renditions {
            guard let status = FileStatus(file(of: rendition)), status.isRegularFile,
                status.size == rendition.byteCount
            else { return nil }
            stamps.append(FileStamp(status))
        }
        if image.renditions.contains(where: { $0.sha256 == nil }) {
            guard let hashed = try? Self.hashed(image, in: directory) else { return nil }
            image = hashed
            rewrites.withLock { $0.append((key, self.record(of: hashed))) }
        } else if record.stamps != stamps.map(Optional.some) {
            for (index, rendition) in image.renditions.enumerated()
            where index >= record.stamps.count || record.stamps[index] != stamps[index] {
                guard (try? FileDigest.sha256(of: file(of: rendition)).hex) == rendition.sha256 else { return nil }
            }
            rewrites.withLock { $0.append((key, self.record(of: image))) }
        } else if clock.now.timeIntervalSince1970 - record.lastUsed >= 3600 {
            staleUses.withLock { $0.append(key) }
        }
        return image
    }

    /// `image` with the SHA-256 of each rendition's file, read from `directory`.
    static func hashed(_ image: ProcessedImage, in directory: URL) throws -> ProcessedImage {
        var image = image
        for index in image.renditions.indices {
            let file = directory.appendingPathComponent(image.renditions[index].fileName)
            image.renditions[index].sha256 = try FileDigest.sha256(of: file).hex
        }
        return image
    }
}
