import Foundation
import GalleryCore
import GalleryJSON
import Loading

/// Thumbnail sets in the remote cache tier. A set is one object, `v1/sets/<set key>` (the key
/// is the hash of the original's hash and the recipe, as in the local cache), so a machine gets
/// a photo's thumbnails with one request: the set's record as one line of JSON, then its files
/// one after another, in the record's order. The tier's envelope guards the whole object; the
/// record and each file are checked again as a seeded set is (names, sizes, hashes, formats).
extension RenditionStore {
    /// The set from the remote tier, verified, its files and record written into the local
    /// cache; nil when the tier does not have it or it is unusable (the build then makes it and
    /// writes it back, replacing a damaged one).
    func sharedOutcome(of original: Original, key: String) async -> Outcome? {
        guard let remote else { return nil }
        let written = await remote.read(.set, key) { payload -> ProcessedImage? in
            do {
                let files = try Self.unpack(
                    payload, stems: stems(of: original.sha256), widths: recipe.widths,
                    video: { videoCheck(of: original.sha256) })
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for (rendition, data) in zip(files.image.renditions, files.contents) {
                    try AtomicFile.write(data, to: file(of: rendition))
                }
                return files.image
            } catch let rejection as ThumbnailSetCheck.Rejection {
                remote.reject(.set, key, because: "held a thumbnail set that \(rejection.kind); replaced")
                return nil
            } catch {
                // The local cache could not take it: the build makes the set as if the tier had none.
                return nil
            }
        }
        // The record is written after the files it names.
        guard let image = written, (try? await writeRecord(image, key: key)) != nil else { return nil }
        remember(image, key: key)
        return Outcome(image: image, original: original, wasProcessed: false)
    }

    /// Writes a set this build made to the remote tier; a clip's whose files pass the tier's
    /// bound on an object is left out (each machine makes it once for its own cache).
    func share(_ image: ProcessedImage, key: String) async {
        guard let remote,
            image.renditions.reduce(0, { $0 + $1.byteCount }) < Int64(RemoteCache.maxObjectBytes - 65_536),
            let payload = try? pack(image)
        else { return }
        await remote.write(.set, key, payload: payload)
    }

    /// Makes sure the remote tier has the set of `original` (a shard whose local cache already
    /// had it made nothing, so wrote nothing): asks, and writes it if the tier has none.
    func shareIfMissing(_ original: Original) async {
        guard let remote else { return }
        let key = usedSetKey(of: original)
        guard let image = await cachedOutcome(key: key)?.image, await remote.contains(.set, key) == false else {
            return
        }
        await share(image, key: key)
    }

    private func pack(_ image: ProcessedImage) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // The shared tier holds the place only as the site shows it (`location:`): none by default.
        var shared = image
        shared.metadata?.location = locationPlaces.flatMap { image.metadata?.location?.rounded(to: $0) }
        var data = try encoder.encode(shared)
        data.append(UInt8(ascii: "\n"))
        for rendition in image.renditions {
            data.append(try Data(contentsOf: file(of: rendition)))
        }
        return data
    }

    /// The record and the files of a packed set, each checked; throws a rejection naming what
    /// is wrong.
    static func unpack(
        _ payload: Data, stems: [ImageFormat: String], widths: [Int],
        video: () -> (recipe: VideoRecipe, stems: [ImageFormat: String])? = { nil }
    ) throws(ThumbnailSetCheck.Rejection) -> (image: ProcessedImage, contents: [Data]) {
        guard let newline = payload.firstIndex(of: UInt8(ascii: "\n")),
            let image = try? ProcessedImage.decode(payload[payload.startIndex..<newline]),
            ThumbnailSetCheck.isWellFormed(image, pathPrefix: "")
        else { throw ThumbnailSetCheck.Rejection("had no readable record", "") }
        guard ThumbnailSetCheck.hasExpectedNames(image, stems: stems, widths: widths, video: video) else {
            throw ThumbnailSetCheck.Rejection("was made with other settings", "")
        }
        var offset = payload.index(after: newline)
        var contents: [Data] = []
        for rendition in image.renditions {
            // Compared before adding: a record's byte count near Int64.max must not trap.
            guard rendition.byteCount <= Int64(payload.endIndex - offset) else {
                throw ThumbnailSetCheck.Rejection("was truncated", rendition.fileName)
            }
            let end = offset + Int(rendition.byteCount)
            // A slice of the payload, not a copy: a clip's set may be a few hundred megabytes.
            let data = payload[offset..<end]
            try ThumbnailSetCheck.verify(data, as: rendition, name: rendition.fileName)
            contents.append(data)
            offset = end
        }
        guard offset == payload.endIndex else { throw ThumbnailSetCheck.Rejection("was padded", "") }
        return (image, contents)
    }
}
