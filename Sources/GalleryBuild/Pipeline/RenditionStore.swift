import Foundation
import GalleryConcurrency
import GalleryCore
import GalleryJSON
import Imaging
import Loading
import Synchronization

/// The rendition half of the disk cache (`CACHE/v1/renditions/`): thumbnails named by the
/// original's content and the recipe, plus one record per original listing them. An original
/// already processed with this recipe, by any build, is not decoded again; identical bytes from
/// different URLs are processed once.
final class RenditionStore: Sendable {
    let directory: URL
    let recipe: ImageRecipe
    private let processor: ImageProcessor
    private let pool: ImagingPool
    private let inFlight = TaskCoalescer<String, Outcome>()
    /// Sets found in the cache by this build, by key.
    private let known = Mutex<[String: ProcessedImage]>([:])
    private let cache: DiskCache
    /// The published site to take sets from before making them (`seed:`).
    private let seed: SiteSeed?
    /// The remote cache tier: asked before making a set, told of every set made.
    let remote: RemoteCache?

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
        cache: DiskCache, processor: ImageProcessor, pool: ImagingPool, widths: [Int], formats: [ImageFormat],
        quality: Int, effort: Int, seed: SiteSeed? = nil, remote: RemoteCache? = nil
    ) {
        self.cache = cache
        self.seed = seed
        self.remote = remote
        self.directory = cache.renditions
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

    /// The renditions of `original` when the cache has them: no task, no wait.
    func availableRenditions(of original: Original) -> Outcome? {
        cachedOutcome(key: usedSetKey(of: original))
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
            if let cached = cachedOutcome(key: key) { return cached }
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
                    if var outcome = cachedOutcome(key: setKey) {
                        outcome.original = original
                        return outcome
                    }
                }
            }
            let stems = stems(of: original.sha256)
            let file = original.file
            let directory = directory
            let (image, warnings) = try await pool.run { [processor, stems] in
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let (image, warnings) = try processor.process(file, named: "the image", stems: stems, into: directory)
                return (try Self.hashed(image, in: directory), warnings)
            }
            // The record is written after the files it names.
            try writeRecord(image, key: setKey)
            await share(image, key: setKey)
            return Outcome(image: image, original: original, wasProcessed: true, warnings: warnings)
        }
    }

    /// The file names' stems of the set of `originalSHA256` (one per format).
    func stems(of originalSHA256: String) -> [ImageFormat: String] {
        var stems: [ImageFormat: String] = [:]
        for format in recipe.formats {
            stems[format] = String(
                sha256Hex(of: recipe.fileKeyMaterial(originalSHA256: originalSHA256, format: format)).prefix(16))
        }
        return stems
    }

    /// The set taken from the published site (`seed:`), verified, recorded as if made here.
    private func seededOutcome(of original: Original, key: String) async -> Outcome? {
        guard let seed,
            let image = await seed.image(
                originalSHA256: original.sha256, stems: stems(of: original.sha256), widths: recipe.widths,
                into: directory),
            (try? writeRecord(image, key: key)) != nil
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
        let key = String(sha256Hex(of: recipe.setKeyMaterial(originalSHA256: original.sha256)).prefix(32))
        cache.markRenditionSetUsed("\(key).json")
        return key
    }

    /// A set found in the cache, once per build: the record is read and checked on first use.
    func cachedOutcome(key: String) -> Outcome? {
        if let image = known.withLock({ $0[key] }) { return Outcome(image: image, wasProcessed: false) }
        guard let image = cachedImage(key: key) else { return nil }
        // The record's mtime is its last use, for least-recently-used eviction; moved in steps
        // of an hour, like the URL records' (plenty for LRU, and no write per use).
        let record = recordURL(key: key)
        let now = Date()
        if let status = FileStatus(record), now.timeIntervalSince1970 - status.modified >= 3600 {
            try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: record.path)
        }
        remember(image, key: key)
        return Outcome(image: image, wasProcessed: false)
    }

    private func recordURL(key: String) -> URL {
        directory.appendingPathComponent("\(key).json")
    }

    /// The set's record, written after the files it names, with their stamps (modification time
    /// to the nanosecond and inode, as the files are now): a file whose stamp has moved since is
    /// hashed before it is used again.
    func writeRecord(_ image: ProcessedImage, key: String) throws {
        var data = try JSONEncoder().encode(image)
        let stamps = image.renditions.map { FileStatus(file(of: $0)).map(Self.stamp) ?? "-" }
        // The encoder's object ends with its `}`: the stamps join it as one more key.
        guard data.last == UInt8(ascii: "}") else { return try AtomicFile.write(data, to: recordURL(key: key)) }
        data.removeLast()
        data.append(contentsOf: Array(",\"stamps\":\"\(stamps.joined(separator: " "))\"}".utf8))
        try AtomicFile.write(data, to: recordURL(key: key))
    }

    private static func stamp(_ status: FileStatus) -> String {
        "\(status.modifiedNanoseconds):\(status.inode)"
    }

    /// A record whose every file is present with its recorded size, and with its recorded stamp
    /// or else its recorded hash (a file damaged in place at the same size is caught here);
    /// anything less is a miss, and the set is made again. A record from before renditions were
    /// hashed gets its hashes once, from its files.
    private func cachedImage(key: String) -> ProcessedImage? {
        guard let data = FileManager.default.contents(atPath: recordURL(key: key).path),
            let (decoded, recorded) = try? ProcessedImage.decodeRecord(data)
        else { return nil }
        var image = decoded
        var stamps: [String] = []
        for rendition in image.renditions {
            guard let status = FileStatus(file(of: rendition)), status.isRegularFile,
                status.size == rendition.byteCount
            else { return nil }
            stamps.append(Self.stamp(status))
        }
        if image.renditions.contains(where: { $0.sha256 == nil }) {
            guard let hashed = try? Self.hashed(image, in: directory),
                (try? writeRecord(hashed, key: key)) != nil
            else { return nil }
            image = hashed
        } else if recorded != stamps.joined(separator: " ") {
            let before = recorded?.split(separator: " ").map(String.init) ?? []
            for (index, rendition) in image.renditions.enumerated()
            where index >= before.count || before[index] != stamps[index] {
                guard (try? FileDigest.sha256(of: file(of: rendition)).hex) == rendition.sha256 else { return nil }
            }
            try? writeRecord(image, key: key)
        }
        return image
    }

    /// `image` with the SHA-256 of each rendition's file, read from `directory`.
    private static func hashed(_ image: ProcessedImage, in directory: URL) throws -> ProcessedImage {
        var image = image
        for index in image.renditions.indices {
            let file = directory.appendingPathComponent(image.renditions[index].fileName)
            image.renditions[index].sha256 = try FileDigest.sha256(of: file).hex
        }
        return image
    }
}
