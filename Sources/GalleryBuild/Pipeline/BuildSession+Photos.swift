import AsyncHTTPClient
import BuildStore
import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
import Reporting
import Synchronization

/// What the photo pass did: every photo made or found in the cache (each item has its
/// outcome); or, for a `--refresh` whose check found every copy unchanged upstream, nothing more
/// (the site stays).
enum PhotoPass {
    case made
    case siteUnchanged(UnchangedSiteCheck)
}

/// The load and images stages: every photo loaded and processed, concurrently.
extension BuildSession {
    /// Loads and processes every photo, concurrently, and gives each item its outcome.
    /// `unchangedSite`, asked only when every photo's URL was asked about and each answer
    /// confirmed the cached copy (a `--refresh` that found nothing changed upstream), says
    /// whether the site the last build published is this build's too: then no photo is made,
    /// and the pass says so.
    ///
    /// `stamps`, by photo index, are a folder feed's files' stamps as its walk took them
    /// (``FeedDocument/photoStamps``).
    func processPhotos(
        _ items: inout [BuildItem], stamps: [SourceStamp?] = [], report: inout BuildReport,
        unchangedSite check: UnchangedSiteCheck? = nil
    ) async throws(BuildError) -> PhotoPass {
        events(.started(.load, total: items.count))
        events(.started(.images, total: items.count))
        let progress = StageProgress(clock: clock)
        progress.begin(.load)
        let total = items.count
        let advanced: @Sendable (BuildStage) -> Void = { [events] stage in
            events(.advanced(stage, done: progress.increment(stage), total: total))
        }
        // A photo fresh in the cache whose renditions are made needs no task and no wait: one
        // pass over the feed on every core settles them (all of a rebuild within max-age). The
        // rest are revalidated (or fetched): their sets are most likely those of the bytes the
        // cache holds. All the sets' records are read in one go, not one query per photo.
        var found = await items.concurrentMap { [loader, renditions, stamps] item in
            guard let source = item.source else { return (original: (Original, String)?.none, setKey: String?.none) }
            let index = item.photo.index
            let stamp = stamps.indices.contains(index) ? stamps[index] : nil
            if let original = loader.availableOriginal(for: source, stamp: stamp) {
                let key = renditions.usedSetKey(of: original)
                return ((original, key), key)
            }
            return (nil, loader.cachedSHA256(for: source).map(renditions.setKey(ofOriginal:)))
        }
        // A copy the pass finds changed has its image made as its answer comes, while the pass
        // goes on; the photo's own task then finds the set made (or being made).
        let (changed, arrivals) = AsyncStream.makeStream(of: Original.self)
        async let madeEarly: Void = makeImages(of: changed, progress: progress)
        let asked = await revalidateCopies(
            found: &found, of: items, unchangedSite: check?.isUnchanged, changed: arrivals, advanced: advanced)
        arrivals.finish()
        guard !Task.isCancelled else { throw .interrupted }
        if asked.siteUnchanged, let check {
            finishTiming(progress, into: &report)
            report.counts.urls = asked.urls
            report.counts.notModified = asked.urls
            return .siteUnchanged(check)
        }
        await renditions.prefetch(keys: found.compactMap(\.setKey))
        let available = await Array(found.indices).concurrentMap { [renditions, found, asked] offset in
            found[offset].original.map { original, key in
                // An original with a warning (a stale copy) takes the long way, which says it,
                // as does a no-store one (deleted there once used), and one with new bytes (its
                // set made this build, with its warnings).
                let found = AvailablePhoto(
                    original: original,
                    image: original.warning != nil || original.isTransient || asked.changed.contains(original.source)
                        ? nil : renditions.availableRenditions(of: original, key: key)?.image)
                if found.image != nil {
                    if !asked.counted[offset] { advanced(.load) }
                    advanced(.images)
                }
                return found
            }
        }
        var named = PublicImages()
        // Photos in flight at once: enough to keep every request slot and imaging worker busy,
        // few enough that 100,000 photos are not 100,000 suspended tasks at once (measured: a
        // task per photo held 3.5 GB at 100,000 entries).
        let width = max(64, 4 * (options.concurrency ?? config.concurrency))
        await withTaskGroup(of: (Int, PhotoOutcome).self) { group in
            var running = 0
            for offset in items.indices {
                let (photo, source) = (items[offset].photo, items[offset].source)
                let original = available[offset]?.original
                if let original, let image = available[offset]?.image {
                    items[offset].outcome = .done(
                        original: original, image: named(image), wasProcessed: false, warnings: [],
                        imagingWarnings: [])
                    continue
                }
                if let error = asked.failures[offset] {
                    advanced(.images)
                    items[offset].outcome = failed(photo, stage: "load", error: error)
                    continue
                }
                if running >= width, let (done, outcome) = await group.next() {
                    items[done].outcome = named(outcome)
                    running -= 1
                }
                running += 1
                group.addTask {
                    let outcome = await process(
                        photo, source: source, original: original, loadCounted: asked.counted[offset],
                        progress: progress, advanced: advanced)
                    return (offset, outcome)
                }
            }
            for await (done, outcome) in group { items[done].outcome = named(outcome) }
        }
        guard !Task.isCancelled else { throw .interrupted }
        await madeEarly
        await readMissingMetadata(of: &items)
        finishTiming(progress, into: &report)
        tally(items, into: &report)
        if let seed {
            report.counts.seeded = seed.adopted
            for warning in seed.warnings {
                report.warn(warning, to: events)
            }
        }
        report.counts.urls = Set(items.compactMap(\.source)).count
        return .made
    }

    /// Makes the images of the changed copies the one pass downloads, as they come, a few at a
    /// time (the imaging pool sets the pace); their photos' tasks take the sets, made once.
    private func makeImages(of changed: AsyncStream<Original>, progress: StageProgress) async {
        let width = 2 * ProcessInfo.processInfo.activeProcessorCount
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            for await original in changed {
                if running >= width {
                    await group.next()
                    running -= 1
                }
                running += 1
                progress.begin(.images)
                group.addTask { [renditions, loader] in
                    // Its outcome, failure included, is the set's: the photo's task hears it.
                    _ = try? await renditions.renditions(of: original) { damaged in
                        try await loader.freshCopy(of: damaged)
                    }
                }
            }
        }
    }

    /// Loading and imaging overlap: each is timed from its first start to its last end.
    private func finishTiming(_ progress: StageProgress, into report: inout BuildReport) {
        for stage in [BuildStage.load, .images] {
            let seconds = progress.seconds(of: stage)
            report.seconds[stage.rawValue] = seconds
            events(.finished(stage, seconds: seconds))
        }
    }

    /// Asks the servers, in one pass, about the cached copies that need asking before they are
    /// used (stale, or all with --refresh): `found` gets the originals the answers gave; the
    /// photos asked about, by offset, are `counted` (their load is in the progress already),
    /// and those whose answer was an error have it in `failures`. When every photo's URL (`urls`
    /// distinct ones) was asked about and every answer confirmed the copy as the cache had it,
    /// `unchangedSite` is asked, and if it says so, `siteUnchanged` and `found` is left as it
    /// was (the photos will not be made). Without the pass each such
    /// URL was a task of its own through the loader's coalescing: at 100,000 entries the load
    /// stage of a --refresh took 13.9 s that way and 8.0 s this way (`git log -p BENCHMARKS.md`). A build of
    /// `gallerygen serve` shares its loads with the build it replaces, so it loads them one by
    /// one as before. Changed copies are downloaded in the pass and handed to `changed` as they
    /// come, so that their images are made while the pass goes on.
    private func revalidateCopies(
        found: inout [(original: (Original, String)?, setKey: String?)], of items: [BuildItem],
        unchangedSite: (@Sendable () async -> Bool)?, changed: AsyncStream<Original>.Continuation,
        advanced: @escaping @Sendable (BuildStage) -> Void
    ) async -> AskedCopies {
        var counted = [Bool](repeating: false, count: found.count)
        guard case .standalone = mode else { return AskedCopies(counted: counted) }
        // The photos to ask about: cached (a set key from the cached hash) but not usable at once.
        // Each photo asked about, by offset, with its URL's position in `asked`.
        var offsets: [(offset: Int, position: Int)] = []
        var asked: [CanonicalURL] = []
        var positionOf: [CanonicalURL: Int] = [:]
        var photosAt: [Int] = []
        for (offset, found) in found.enumerated() where found.original == nil && found.setKey != nil {
            guard let source = items[offset].source else { continue }
            let position = positionOf[source] ?? asked.count
            if position == asked.count {
                positionOf[source] = position
                asked.append(source)
                photosAt.append(0)
            }
            photosAt[position] += 1
            offsets.append((offset, position))
        }
        guard !asked.isEmpty else { return AskedCopies(counted: counted) }
        let everyPhotoAsked = offsets.count == found.count
        let (counts, urls) = (photosAt, asked)
        let newBytes = Mutex<Set<CanonicalURL>>([])
        let heard = await loader.revalidateCopies(
            of: asked, width: options.concurrency ?? config.concurrency
        ) { position, original in
            for _ in 0..<counts[position] { advanced(.load) }
            // New bytes: made now. A no-store copy takes the photo's own way.
            if let original, original.warning == nil, !original.isTransient {
                newBytes.withLock { _ = $0.insert(urls[position]) }
                changed.yield(original)
            }
        }
        if everyPhotoAsked, heard.unchanged == asked.count, let unchangedSite, await unchangedSite() {
            return AskedCopies(counted: counted, siteUnchanged: true, urls: asked.count)
        }
        var failures: [Int: any Error] = [:]
        // The photos whose URL was answered: those `counts` counted in the progress.
        for (offset, position) in offsets {
            guard let answer = heard[position] else { continue }
            counted[offset] = true
            switch answer {
            case .success(let original):
                let key = renditions.usedSetKey(of: original)
                found[offset] = ((original, key), key)
            case .failure(let error):
                failures[offset] = error
            }
        }
        return AskedCopies(
            counted: counted, failures: failures, changed: newBytes.withLock { $0 }, urls: asked.count)
    }

    /// What ``revalidateCopies(found:of:unchangedSite:changed:advanced:)`` found.
    private struct AskedCopies {
        var counted: [Bool]
        var failures: [Int: any Error] = [:]
        /// The URLs whose answer brought new bytes, handed to imaging as they came.
        var changed: Set<CanonicalURL> = []
        var siteUnchanged = false
        var urls = 0
    }

    /// Reads what the originals say for sets made before gallerygen read it (a cache from an
    /// earlier version), once per set, where the cache still has the original; warnings go with
    /// the bytes, as libvips' are.
    private func readMissingMetadata(of items: inout [BuildItem]) async {
        var wanted: [String: URL] = [:]
        // The set's key of each photo that needs it, by offset, and whether its original is gone.
        var keys: [(offset: Int, key: String, isGone: Bool)] = []
        for (offset, item) in items.enumerated() {
            guard case .done(let original, let image, _, _, _) = item.outcome, image.metadata == nil else { continue }
            let key = renditions.setKey(ofOriginal: original.sha256)
            let isGone = FileStatus(original.file)?.isRegularFile != true
            keys.append((offset, key, isGone))
            if !isGone, wanted[key] == nil { wanted[key] = original.file }
        }
        guard !keys.isEmpty else { return }
        // Without the original (a seeded cache, an evicted download), what an older gallerygen
        // read is shown as it was, without a place.
        let gone = Set(keys.filter(\.isGone).map(\.key))
        let older = gone.isEmpty ? [:] : ((try? await store.olderMetadata(keys: Array(gone))) ?? [:])
        let found = wanted.isEmpty ? [:] : await renditions.readMetadata(of: wanted.map { ($0.key, $0.value) })
        for (offset, key, isGone) in keys {
            if isGone {
                guard let metadata = older[key] else { continue }
                items[offset].outcome?.changeImage { $0.metadata = metadata }
            } else {
                guard let (metadata, warnings) = found[key] else { continue }
                items[offset].outcome?.changeImage { $0.metadata = metadata }
                items[offset].outcome?.addImagingWarnings(warnings)
            }
        }
    }

    /// Loads (unless `original` is already known) and processes one photo. Failures and warnings
    /// are announced as they happen (`--verbose` prints them then) and kept for the report.
    /// `loadCounted`: the load stage's progress counted the photo already (when its URL's
    /// answer came in ``revalidateCopies(found:of:unchangedSite:changed:advanced:)``).
    func process(
        _ photo: Photo, source: CanonicalURL?, original known: Original?, loadCounted: Bool = false,
        progress: StageProgress, advanced: @Sendable (BuildStage) -> Void
    ) async -> PhotoOutcome {
        let name = displayName(of: photo.source)
        guard let source else {
            advanced(.load)
            advanced(.images)
            return failed(photo, stage: "load", cause: "not a loadable URL", message: "not a loadable URL")
        }
        var original: Original
        do {
            if let known {
                original = known
            } else if let seed, !source.isFile {
                let published = displayName(of: photo.source)
                original = try await loader.original(for: source) { await seed.known(source: published) }
            } else {
                original = try await loader.original(for: source)
            }
            if !loadCounted { advanced(.load) }
        } catch {
            advanced(.load)
            advanced(.images)
            return failed(photo, stage: "load", error: error)
        }
        let warnings = original.warning.map { ["\(name): \($0)"] } ?? []
        let transient = original.isTransient ? original.file : nil
        defer {
            // A no-store body is kept only while it is used.
            if let transient { try? FileManager.default.removeItem(at: transient) }
        }
        progress.begin(.images)
        do {
            let outcome = try await renditions.renditions(of: original) { [loader] damaged in
                try await loader.freshCopy(of: damaged)
            }
            advanced(.images)
            // A fresh copy replaces this photo's original only if it was fetched for its URL.
            if let repaired = outcome.original, repaired.source == original.source { original = repaired }
            for warning in warnings + outcome.warnings.map({ "\(name): \($0)" }) { events(.warning(warning)) }
            return .done(
                original: original, image: outcome.image, wasProcessed: outcome.wasProcessed, warnings: warnings,
                imagingWarnings: outcome.warnings)
        } catch {
            advanced(.images)
            for warning in warnings { events(.warning(warning)) }
            return failed(photo, stage: "image", error: error, original: original, warnings: warnings)
        }
    }

    /// Clips met on a machine without ffmpeg leave the gallery (each is a warning, from
    /// ``tally(_:into:)``): a tile that can show nothing is worse than none.
    func leaveOutClipsWithoutFFmpeg(_ context: inout BuildContext) {
        func isLeftOut(_ item: BuildItem) -> Bool {
            guard case .failed(let failure, _, _) = item.outcome else { return false }
            return failure.cause == FailureCause.videoToolMissing
        }
        guard context.items.contains(where: isLeftOut) else { return }
        context.items.removeAll(where: isLeftOut)
        context.report.counts.photos = context.items.count
    }

    func failed(
        _ photo: Photo, stage: String, error: any Error, original: Original? = nil, warnings: [String] = []
    ) -> PhotoOutcome {
        failed(
            photo, stage: stage, cause: FailureCause.of(error), message: FailureCause.message(of: error),
            original: original, warnings: warnings)
    }

    func failed(
        _ photo: Photo, stage: String, cause: String, message: String, original: Original? = nil,
        warnings: [String] = []
    ) -> PhotoOutcome {
        let name = displayName(of: photo.source)
        let failure = BuildReport.Failure(
            index: photo.index, id: photo.id, url: name, stage: stage, cause: cause,
            host: FailureCause.host(of: photo.source, cause: cause), message: "\(name): \(message)")
        events(.failed(failure))
        return .failed(failure, original: original, warnings: warnings)
    }

    func tally(_ items: [BuildItem], into report: inout BuildReport) {
        var countedURLs: Set<String> = []
        var processedKeys: Set<String> = []
        // libvips' warnings belong to the bytes, which were decoded once whichever photo got there
        // first: reported once, under the first photo in feed order with those bytes.
        var imagingWarnings: [String: [String]] = [:]
        for item in items {
            guard case .done(let original, _, _, _, let warnings) = item.outcome, !warnings.isEmpty else { continue }
            imagingWarnings[original.sha256] = warnings
        }
        var warnedKeys: Set<String> = []
        for item in items {
            guard let outcome = item.outcome else { continue }
            if let original = outcome.original, countedURLs.insert(original.source.description).inserted {
                switch original.origin {
                case .local: report.counts.local += 1
                case .downloaded: report.counts.downloaded += 1
                case .revalidated, .seeded: report.counts.notModified += 1
                case .fresh, .offline, .shared: report.counts.fresh += 1
                case .stale: report.counts.stale += 1
                }
                report.warnings += outcome.warnings
            }
            switch outcome {
            case .done(let original, let image, let wasProcessed, _, _):
                if wasProcessed, processedKeys.insert(original.sha256).inserted {
                    report.counts.processed += 1
                    report.counts.footageSeconds += image.video?.duration ?? 0
                }
                if image.video != nil { report.counts.videos += 1 }
                if let warnings = imagingWarnings[original.sha256], warnedKeys.insert(original.sha256).inserted {
                    let name = displayName(of: item.photo.source)
                    report.warnings += warnings.map { "\(name): \($0)" }
                }
            case .failed(let failure, _, _) where failure.cause == FailureCause.videoToolMissing:
                report.warnings.append(failure.message + "; left out of the gallery")
            case .failed(let failure, _, _):
                report.counts.failed += 1
                report.failures.append(failure)
            }
        }
    }
}
