import AsyncHTTPClient
import Foundation
import GalleryConcurrency
import GalleryCore
import GalleryJSON
import Imaging
import Loading
import NIOCore
import NIOHTTP1
import Synchronization

/// The published site a build starts warm from (`seed:` in gallery.yml, `--seed URL`): its
/// `gallery-manifest.json` says which original each photo had (hash and validators) and which
/// thumbnails were made of it (each with its hash). A build with nothing in its cache asks the
/// photo's server whether the original is still the same (a conditional request, answered 304)
/// and takes the thumbnails from the live site instead of downloading and encoding the original.
///
/// Nothing from the seed is used without its hash matching the manifest. The manifest itself is
/// trusted as far as the live site is: whoever can change the live site can say which original
/// a photo had. With the site's ``SigningKey`` a record counts only when its MAC checks (the
/// site's own builds signed it), and the rest are made here. Nothing from the seed is
/// needed: a seed that cannot be read, or a thumbnail that does not match, costs the time of
/// making it here and a warning. The manifest is read only when a build first needs it: a cache
/// that holds the photos' originals never asks the seed. A cache filled from the seed holds the
/// thumbnails but not the originals, so the next build asks again (one manifest, and the same
/// conditional requests), and encodes nothing.
final class SiteSeed: Sendable {
    /// The site's address, ending in `/`.
    let base: URL
    private let client: HTTPClient
    private let requests: AsyncSemaphore
    private let index = Mutex<Task<Index?, Never>?>(nil)
    private let tally = Mutex(Tally())
    private let signingKey: SigningKey?
    /// The largest manifest read: about 300,000 photos' records. A larger one is refused by its
    /// announced size, or as soon as that many bytes have arrived, never buffered whole.
    static let maxManifestBytes = 256 << 20
    /// The largest thumbnail read.
    static let maxFileBytes = 50_000_000

    /// What the manifest says, by the photo's source and by its original's hash.
    struct Index: Sendable {
        var bySource: [String: KnownOriginal] = [:]
        var bySHA256: [String: ProcessedImage] = [:]
        /// Records left out, by why: not signed with the site's key, or not well-formed (a
        /// path outside `images/`, a hash or validator that is not one).
        var dropped: [String: Int] = [:]
        /// The first record dropped for each reason.
        var droppedExample: [String: String] = [:]

        mutating func drop(_ record: ManifestPhoto, because reason: String) {
            dropped[reason, default: 0] += 1
            if droppedExample[reason] == nil { droppedExample[reason] = record.id }
        }
    }

    private struct Tally {
        var adopted = 0
        var unreadable: String?
        var rejected: [String: Int] = [:]
        var example: [String: String] = [:]
    }

    init(base: URL, client: HTTPClient, concurrency: Int, signingKey: SigningKey? = nil) {
        self.signingKey = signingKey
        self.base = base.absoluteString.hasSuffix("/") ? base : base.appendingPathComponent("")
        self.client = client
        self.requests = AsyncSemaphore(permits: max(1, concurrency))
    }

    /// What the published site knew of the original at `source` (as the manifest names it).
    func known(source: String) async -> KnownOriginal? {
        await loadedIndex()?.bySource[source]
    }

    /// The thumbnail set of the original with this hash, fetched from the published site and
    /// verified, its files written into `directory`; nil when the seed does not have it, it was
    /// made with another recipe (other names), or any file does not match its hash.
    ///
    /// The names are the ones this build would give the set (`<stem>-<width>.<ext>`, the stem a
    /// hash of the original and the recipe, the widths those this build would make of a photo
    /// that wide), so a set made with other settings is of no use, and no other name can reach
    /// the site. Every file is fetched and checked before any is written.
    ///
    /// A clip's set holds its videos too, checked by `video` (``ThumbnailSetCheck``), each up to
    /// the remote cache's bound on an object.
    func image(
        originalSHA256: String, stems: [ImageFormat: String], widths configured: [Int], into directory: URL,
        video: () -> (recipe: VideoRecipe, stems: [ImageFormat: String])? = { nil }
    ) async -> ProcessedImage? {
        guard let published = await loadedIndex()?.bySHA256[originalSHA256] else { return nil }
        guard ThumbnailSetCheck.hasExpectedNames(published, stems: stems, widths: configured, video: video) else {
            return nil
        }
        // Held until every file has arrived and checked: a set the remote cache could not hold
        // is made here instead.
        guard published.renditions.reduce(0, { $0 + $1.byteCount }) <= Int64(RemoteCache.maxObjectBytes) else {
            return nil
        }
        var image = published
        var files: [(Data, URL)] = []
        do {
            for index in image.renditions.indices {
                let rendition = image.renditions[index]
                let limit = rendition.format.isVideo ? Int(rendition.byteCount) : Self.maxFileBytes
                let data = try await fetch(rendition.path, limit: limit)
                try ThumbnailSetCheck.verify(data, as: rendition, name: rendition.path)
                files.append((data, directory.appendingPathComponent(rendition.fileName)))
                image.renditions[index].path = rendition.fileName
            }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (data, file) in files { try AtomicFile.write(data, to: file) }
        } catch let rejection as Rejection {
            note(rejection.kind, example: rejection.detail)
            return nil
        } catch is CancellationError {
            return nil
        } catch {
            note("could not be fetched", example: RemoteTransport.describe(error))
            return nil
        }
        return image
    }

    /// A set taken from the seed was recorded in the cache.
    func noteAdopted() {
        tally.withLock { $0.adopted += 1 }
    }

    /// Thumbnail sets taken from the seed so far.
    var adopted: Int { tally.withLock { $0.adopted } }

    /// What went wrong with the seed, in a few lines for the report.
    var warnings: [String] {
        tally.withLock { tally in
            var lines: [String] = []
            if let unreadable = tally.unreadable { lines.append(unreadable) }
            for (kind, count) in tally.rejected.sorted(by: { $0.key < $1.key }) {
                if kind == Self.unsignedReason || kind == Self.malformedReason {
                    lines.append(
                        "seed \(base.absoluteString): \(count) \(kind) (e.g. \(tally.example[kind] ?? "")); "
                            + "those photos are made here")
                    continue
                }
                let what = count == 1 ? "1 thumbnail set" : "\(count) thumbnail sets"
                lines.append(
                    "seed \(base.absoluteString): \(what) \(kind) (e.g. \(tally.example[kind] ?? "")); made here instead"
                )
            }
            return lines
        }
    }

    // MARK: Reading the published site

    private typealias Rejection = ThumbnailSetCheck.Rejection

    private func note(_ kind: String, example: String) {
        tally.withLock { tally in
            tally.rejected[kind, default: 0] += 1
            if tally.example[kind] == nil { tally.example[kind] = example }
        }
    }

    private func loadedIndex() async -> Index? {
        let task = index.withLock { task in
            if let task { return task }
            let made = Task { await self.readIndex() }
            task = made
            return made
        }
        // An interrupted build does not wait for the manifest.
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func readIndex() async -> Index? {
        let name = Manifest.fileName
        do {
            let data = try await fetch(name, limit: Self.maxManifestBytes)
            let manifest: Manifest
            do {
                manifest = try Manifest.decode(data)
            } catch {
                throw Rejection("", "\(name) is not a gallerygen manifest (\(error))")
            }
            let index = Self.index(of: manifest, signingKey: signingKey)
            tally.withLock { tally in
                for (reason, count) in index.dropped {
                    tally.rejected[reason, default: 0] += count
                    tally.example[reason] = index.droppedExample[reason]
                }
            }
            return index
        } catch {
            if Task.isCancelled { return nil }
            let reason = (error as? Rejection)?.detail ?? "cannot read \(name): \(RemoteTransport.describe(error))"
            tally.withLock {
                $0.unreadable = "seed \(base.absoluteString): \(reason); every photo is loaded and made here"
            }
            return nil
        }
    }

    /// The usable records: a photo with its original's hash and validators, and whole thumbnail
    /// sets whose placeholder and size are well-formed (they go into pages unchecked otherwise).
    static func index(of manifest: Manifest, signingKey: SigningKey? = nil) -> Index {
        var index = Index()
        for photo in manifest.photos where photo.error == nil {
            if let signingKey, !photo.isSigned(by: signingKey) {
                index.drop(photo, because: Self.unsignedReason)
                continue
            }
            guard let sha256 = photo.sha256, isLowercaseHex(sha256, length: 64) else {
                index.drop(photo, because: Self.malformedReason)
                continue
            }
            if let validators = photo.validators {
                if isWellFormed(validators) {
                    index.bySource[photo.source] = KnownOriginal(sha256: sha256, validators: validators)
                } else {
                    index.drop(photo, because: Self.malformedReason)
                }
            }
            if index.bySHA256[sha256] == nil, let image = photo.image {
                if ThumbnailSetCheck.isWellFormed(image, pathPrefix: "images/") {
                    index.bySHA256[sha256] = image
                } else {
                    index.drop(photo, because: Self.malformedReason)
                }
            }
        }
        return index
    }

    static let unsignedReason = "manifest records were not signed with this site's key (\(SigningKey.variable))"
    static let malformedReason =
        "manifest records were not well-formed (a path outside images/, or a hash or validator that is not one)"

    /// Validators that go into a request as they are: an entity tag as RFC 9110 spells one (never
    /// `*`, which matches anything), a date that parses.
    private static func isWellFormed(_ validators: Validators) -> Bool {
        if let etag = validators.etag {
            let tag = etag.hasPrefix("W/") ? etag.dropFirst(2) : Substring(etag)
            guard tag.count >= 2, tag.first == "\"", tag.last == "\"",
                tag.dropFirst().dropLast().utf8.allSatisfy({ $0 == 0x21 || (0x23...0x7E).contains($0) })
            else { return false }
        }
        if let date = validators.lastModified, HTTPDate.parse(date) == nil { return false }
        return !validators.isEmpty
    }

    /// GET of a file of the published site, whole, or an error naming it.
    private func fetch(_ path: String, limit: Int) async throws -> Data {
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
            throw Rejection("could not be fetched", "\(path): not a path")
        }
        return try await requests.withPermit { [client] in
            var request = HTTPClientRequest(url: url.absoluteString)
            request.headers.add(name: "User-Agent", value: "gallerygen/\(GalleryVersion.current)")
            let response = try await client.execute(request, timeout: .seconds(60))
            guard response.status == .ok else {
                throw Rejection("could not be fetched", "\(url.absoluteString): HTTP \(response.status.code)")
            }
            let tooLarge = Rejection("could not be fetched", "\(url.absoluteString) is larger than \(limit) bytes")
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int.init), announced > limit {
                throw tooLarge
            }
            do {
                let body = try await response.body.collect(upTo: limit)
                return Data(body.readableBytesView)
            } catch is NIOTooManyBytesError {
                throw tooLarge
            }
        }
    }
}
