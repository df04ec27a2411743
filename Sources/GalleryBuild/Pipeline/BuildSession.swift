import AsyncHTTPClient
import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Imaging
import Loading
import Markdown
import Rendering
import Synchronization

/// One run of the pipeline with everything it shares: loader, rendition store, report.
struct BuildSession: Sendable {
    let config: SiteConfig
    let layout: SiteLayout
    let options: BuildOptions
    let events: SiteBuilder.EventHandler
    let loader: ImageLoader
    let http: HTTPLoader
    let cache: DiskCache
    let renditions: RenditionStore
    let renderer: SiteRenderer
    private let supersede: (@Sendable () async -> Void)?
    /// A build alone in its process waits, when interrupted, for what it started (transfers
    /// deleting their partial files, encodes under way); a build of `serve` leaves shared loads
    /// to the build that replaced it.
    private let waitsWhenInterrupted: Bool
    private let clock = ContinuousClock()

    init(
        config: SiteConfig,
        layout: SiteLayout,
        options: BuildOptions,
        resources: BuildResources,
        waitsWhenInterrupted: Bool,
        supersede: (@Sendable () async -> Void)?,
        events: @escaping SiteBuilder.EventHandler
    ) async throws(BuildError) {
        self.config = config
        self.layout = layout
        self.options = options
        self.events = events
        self.supersede = supersede
        self.waitsWhenInterrupted = waitsWhenInterrupted
        let environment = try resources.environment(
            for: BuildResources.Environment.Key(
                cacheDirectory: layout.cacheDirectory,
                concurrency: options.concurrency ?? config.concurrency,
                perHost: options.perHost ?? config.perHost,
                maxImageBytes: config.maxImageBytes,
                refresh: options.refresh,
                offline: options.offline
            )
        )
        self.cache = environment.cache
        self.http = environment.http
        self.loader = environment.loader
        do {
            let processor = try ImageProcessor(
                configuration: ImageProcessor.Configuration(
                    widths: config.images.widths,
                    formats: config.images.formats,
                    quality: config.images.quality,
                    maxPixels: config.maxPixels,
                    webpEffort: config.images.effort,
                    avifEffort: config.images.effort,
                    threadsPerImage: 1
                )
            )
            self.renditions = RenditionStore(
                cache: environment.cache,
                processor: processor,
                pool: resources.imagingPool,
                widths: config.images.widths,
                formats: config.images.formats,
                quality: config.images.quality,
                effort: config.images.effort
            )
        } catch {
            throw BuildError(.imaging, underlying: error)
        }
        do {
            self.renderer = try await SiteRenderer(
                configuration: SiteRenderer.Configuration(
                    themeDirectory: layout.themeDirectory, pageSize: config.pageSize)
            )
        } catch {
            throw BuildError(.theme, underlying: error)
        }
    }

    /// Runs the stages; whatever happens, keeps what the cache learned.
    func run() async throws(BuildError) -> (BuildReport, String?) {
        await loader.beginBuild(keepingFinished: supersede != nil)
        let statisticsBefore = http.statistics
        let result: Result<(BuildReport, String?), BuildError>
        do {
            result = .success(try await runStages(statisticsBefore: statisticsBefore))
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result, error.code == .interrupted, waitsWhenInterrupted {
            // Cancelled transfers delete their partial files and encodes under way finish:
            // nothing is left half-written when the process exits.
            await loader.cancelAndDrain()
            await renditions.drain()
        }
        var cacheWarning: String?
        do {
            try cache.persist()
            if let limit = config.cacheLimit, case .success = result {
                let (_, remaining) = try cache.evict(toFit: limit)
                if remaining > limit {
                    cacheWarning =
                        "the cache holds \(BuildReport.formatBytes(remaining)), over cache_limit "
                        + "(\(BuildReport.formatBytes(limit))): this build alone uses that much, and what a build "
                        + "uses is never evicted; raise cache_limit to at least that"
                }
            }
        } catch {
            cacheWarning = "\(error)"
        }
        var (report, feedSHA256) = try result.get()
        if let cacheWarning {
            report.warnings.append(cacheWarning)
            events(.warning(cacheWarning))
        }
        return (report, feedSHA256)
    }

    private func runStages(statisticsBefore: TransferStatistics) async throws(BuildError) -> (BuildReport, String?) {
        var report = BuildReport()
        // Relative to the site, like every path in the report and the manifest: the same site
        // checked out elsewhere gives the same report.
        report.output = relativeName(of: layout.outputDirectory)

        let (feed, feedSHA256, feedWarning) = try await timed(.feed, into: &report) { () throws(BuildError) in
            try await readFeed()
        }
        if let feedWarning {
            report.warnings.append(feedWarning)
            events(.warning(feedWarning))
        }
        let sources = await feed.photos.concurrentMap { CanonicalURL($0.source) }
        // Claim this build's URLs before an older build is let go, so shared loads are joined.
        await loader.claim(Set(sources.compactMap { $0 }))
        await supersede?()
        // The previous build's manifest (needed only to write) is read while the photos load.
        // Not before: until the build this one supersedes has ended, it may still write one.
        let writer = OutputWriter(directory: layout.outputDirectory)
        async let previousManifest = { [clock] in
            let start = clock.now
            return (writer.previousManifest(), (clock.now - start).seconds)
        }()
        report.counts.photos = feed.photos.count
        report.counts.skipped = feed.skipped.count
        for issue in feed.skipped {
            let failure = BuildReport.Failure(
                index: issue.index, id: nil, url: nil, stage: "feed", cause: "no usable image URL", host: nil,
                message: issue.message)
            events(.failed(failure))
            report.failures.append(failure)
        }

        let outcomes = try await processPhotos(feed.photos, sources: sources, report: &report)
        guard !Task.isCancelled else { throw .interrupted }

        let pages = try await timed(.render, into: &report) { () throws(BuildError) in
            try await render(feed: feed, outcomes: outcomes)
        }
        guard !Task.isCancelled else { throw .interrupted }

        // From here on the build runs to the end: the output is replaced as a whole or not at all.
        let (previous, manifestSeconds) = await previousManifest
        report.seconds["manifest"] = manifestSeconds
        let written = try await timed(.write, into: &report) { () throws(BuildError) in
            try write(pages: pages, outcomes: outcomes, photos: feed.photos, with: writer, previous: previous)
        }
        report.counts.filesWritten = written.written
        report.counts.filesRemoved = written.removed
        report.counts.bytesWritten = written.bytesWritten
        let transfers = http.statistics
        report.counts.requests = transfers.requests - statisticsBefore.requests
        report.counts.bytesTransferred = transfers.bodyBytes - statisticsBefore.bodyBytes
        report.failures.sort { ($0.index, $0.stage) < ($1.index, $1.stage) }
        return (report, feedSHA256)
    }

    // MARK: Stages

    /// The feed, the hash of its bytes (nil for a folder), and a warning when a stale copy of a
    /// remote feed stood in for it.
    private func readFeed() async throws(BuildError) -> (FeedDocument, String?, String?) {
        let reader = FeedReader(
            configuration: FeedReader.Configuration(
                format: config.feed.format,
                fields: config.feed.fields,
                largestWidth: config.images.widths.max() ?? 1600
            )
        )
        do {
            switch layout.feed {
            case .folder(let folder):
                return (try reader.document(fromFolder: folder), nil, nil)
            case .file(let file):
                guard let data = FileManager.default.contents(atPath: file.path) else {
                    throw BuildError(.feed, "\(relativeName(of: file)): cannot read the feed")
                }
                return (
                    try reader.document(from: data, location: file, name: relativeName(of: file)), sha256Hex(of: data),
                    nil
                )
            case .remote(let url):
                guard let source = CanonicalURL(url) else {
                    throw BuildError(.feed, "\(url.absoluteString): not a usable feed URL")
                }
                let (data, original) = try await http.document(for: source)
                return (
                    try reader.document(from: data, location: url, name: url.absoluteString), original.sha256,
                    original.warning.map { "feed \(url.absoluteString): \($0)" }
                )
            }
        } catch let error as BuildError {
            throw error
        } catch is CancellationError {
            throw .interrupted
        } catch {
            throw BuildError(.feed, underlying: error)
        }
    }

    /// Loads and processes every photo, concurrently; returns the outcome per feed index.
    /// `sources` are the photos' canonical URLs (nil: not loadable).
    private func processPhotos(_ photos: [Photo], sources: [CanonicalURL?], report: inout BuildReport)
        async throws(BuildError) -> [Int: PhotoOutcome]
    {
        events(.started(.load, total: photos.count))
        events(.started(.images, total: photos.count))
        let loadStart = clock.now
        let progress = StageCounter()
        let total = photos.count
        let advanced: @Sendable (BuildStage) -> Void = { [events] stage in
            events(.advanced(stage, done: progress.increment(stage), total: total))
        }
        // A photo fresh in the cache whose renditions are made needs no task and no wait: one
        // pass over the feed on every core settles them (all of a rebuild within max-age).
        let available = await Array(zip(photos, sources)).concurrentMap { [loader, renditions] photo, source in
            let original = source.flatMap(loader.availableOriginal(for:))
            let image = original.flatMap(renditions.availableRenditions(of:))?.image
            if image != nil {
                advanced(.load)
                advanced(.images)
            }
            return (original, image)
        }
        var outcomes: [Int: PhotoOutcome] = [:]
        await withTaskGroup(of: (Int, PhotoOutcome).self) { group in
            for (offset, photo) in photos.enumerated() {
                let (original, image) = available[offset]
                if let original, let image {
                    outcomes[photo.index] = .done(
                        original: original, image: image, wasProcessed: false, warnings: [], imagingWarnings: [])
                    continue
                }
                group.addTask {
                    (photo.index, await process(photo, source: sources[offset], original: original, advanced: advanced))
                }
            }
            for await (index, outcome) in group { outcomes[index] = outcome }
        }
        guard !Task.isCancelled else { throw .interrupted }
        let elapsed = (clock.now - loadStart).seconds
        report.seconds["load"] = elapsed
        report.seconds["images"] = elapsed
        events(.finished(.load, seconds: elapsed))
        events(.finished(.images, seconds: elapsed))
        tally(outcomes, photos: photos, into: &report)
        report.counts.urls = Set(sources.compactMap { $0 }).count
        return outcomes
    }

    /// Loads (unless `original` is already known) and processes one photo. Failures and warnings
    /// are announced as they happen (`--verbose` prints them then) and kept for the report.
    private func process(
        _ photo: Photo, source: CanonicalURL?, original known: Original?, advanced: @Sendable (BuildStage) -> Void
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
            } else {
                original = try await loader.original(for: source)
            }
            advanced(.load)
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
        do {
            // The renditions are shared by every photo with these bytes, and so are their
            // messages: they say "the image", and each photo's own name is put before them.
            let outcome = try await renditions.renditions(of: original, name: "the image") { [loader] damaged in
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

    private func failed(
        _ photo: Photo, stage: String, error: any Error, original: Original? = nil, warnings: [String] = []
    ) -> PhotoOutcome {
        failed(
            photo, stage: stage, cause: FailureCause.of(error), message: FailureCause.message(of: error),
            original: original, warnings: warnings)
    }

    private func failed(
        _ photo: Photo, stage: String, cause: String, message: String, original: Original? = nil,
        warnings: [String] = []
    ) -> PhotoOutcome {
        let failure = BuildReport.Failure(
            index: photo.index, id: photo.id, url: displayName(of: photo.source), stage: stage, cause: cause,
            host: photo.source.isFileURL ? nil : photo.source.host?.lowercased(),
            message: "\(displayName(of: photo.source)): \(message)")
        events(.failed(failure))
        return .failed(failure, original: original, warnings: warnings)
    }

    private func tally(_ outcomes: [Int: PhotoOutcome], photos: [Photo], into report: inout BuildReport) {
        var countedURLs: Set<String> = []
        var processedKeys: Set<String> = []
        // libvips' warnings belong to the bytes, which were decoded once whichever photo got there
        // first: reported once, under the first photo in feed order with those bytes.
        var imagingWarnings: [String: [String]] = [:]
        for outcome in outcomes.values {
            guard case .done(let original, _, _, _, let warnings) = outcome, !warnings.isEmpty else { continue }
            imagingWarnings[original.sha256] = warnings
        }
        var warnedKeys: Set<String> = []
        for photo in photos {
            guard let outcome = outcomes[photo.index] else { continue }
            if let original = outcome.original, countedURLs.insert(original.source.description).inserted {
                switch original.origin {
                case .local: report.counts.local += 1
                case .downloaded: report.counts.downloaded += 1
                case .revalidated: report.counts.notModified += 1
                case .fresh, .offline: report.counts.fresh += 1
                case .stale: report.counts.stale += 1
                }
                report.warnings += outcome.warnings
            }
            switch outcome {
            case .done(let original, _, let wasProcessed, _, _):
                if wasProcessed, processedKeys.insert(original.sha256).inserted { report.counts.processed += 1 }
                if let warnings = imagingWarnings[original.sha256], warnedKeys.insert(original.sha256).inserted {
                    let name = displayName(of: photo.source)
                    report.warnings += warnings.map { "\(name): \($0)" }
                }
            case .failed(let failure, _, _):
                report.counts.failed += 1
                report.failures.append(failure)
            }
        }
    }

    private func render(feed: FeedDocument, outcomes: [Int: PhotoOutcome]) async throws(BuildError) -> [RenderedFile] {
        var intro = ""
        if let file = layout.introFile {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else {
                throw BuildError(.intro, "\(relativeName(of: file)): cannot read the intro (is it UTF-8 text?)")
            }
            intro = MarkdownRenderer(allowsRawHTML: config.allowRawHTML).html(from: text)
        }
        let items = feed.photos.map { photo in
            let outcome = outcomes[photo.index]
            return GalleryItem(photo: photo, image: outcome?.image.map(publicImage), failure: outcome?.failureMessage)
        }
        let gallery = Gallery(title: config.title, introHTML: intro, baseURL: config.baseURL, items: items)
        do {
            return try await renderer.render(gallery)
        } catch {
            throw BuildError(.theme, underlying: error)
        }
    }

    private func write(
        pages: [RenderedFile], outcomes: [Int: PhotoOutcome], photos: [Photo], with writer: OutputWriter,
        previous: Manifest?
    ) throws(BuildError) -> OutputWriter.Result {
        var files = pages.map { OutputFile(path: $0.path, content: .bytes($0.contents)) }
        var seen: Set<String> = []
        var manifestPhotos: [ManifestPhoto] = []
        for photo in photos {
            let outcome = outcomes[photo.index]
            let image = outcome?.image
            for rendition in image?.renditions ?? [] where seen.insert(rendition.path).inserted {
                files.append(
                    OutputFile(
                        path: publicPath(of: rendition),
                        content: .copy(of: renditions.file(of: rendition), size: rendition.byteCount)
                    )
                )
            }
            manifestPhotos.append(
                ManifestPhoto(
                    id: photo.id,
                    source: displayName(of: photo.source),
                    sha256: outcome?.original?.sha256,
                    validators: outcome?.original.map(\.validators).flatMap {
                        $0.etag == nil && $0.lastModified == nil ? nil : $0
                    },
                    renditions: image.map(publicImage)?.renditions ?? [],
                    error: outcome?.failureMessage
                )
            )
        }
        let manifest = Manifest(photos: manifestPhotos, files: files.map(\.path).sorted())
        do {
            return try writer.write(files, manifest: manifest, previous: previous)
        } catch {
            throw BuildError(
                .output,
                "cannot write the site to \(layout.outputDirectory.path) (the output folder is as the previous "
                    + "build left it)",
                underlying: FileWriteFailure(error as NSError))
        }
    }

    // MARK: Helpers

    /// The system's words for a file error ("No space left on device"), and the file, rather than
    /// Foundation's generic sentence.
    static func describe(fileError error: NSError) -> String {
        var reason = error.localizedDescription
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(underlying.code)))
        } else if error.domain == NSPOSIXErrorDomain {
            reason = String(cString: strerror(Int32(error.code)))
        } else if error.domain == NSCocoaErrorDomain {
            switch CocoaError.Code(rawValue: error.code) {
            case .fileWriteOutOfSpace: reason = String(cString: strerror(ENOSPC))
            case .fileWriteNoPermission: reason = String(cString: strerror(EACCES))
            case .fileWriteVolumeReadOnly: reason = String(cString: strerror(EROFS))
            default: break
            }
        }
        if let path = error.userInfo[NSFilePathErrorKey] as? String {
            reason += " (\((path as NSString).lastPathComponent))"
        }
        return reason
    }

    private func timed<Value>(
        _ stage: BuildStage, into report: inout BuildReport, _ body: () async throws(BuildError) -> Value
    )
        async throws(BuildError) -> Value
    {
        events(.started(stage, total: nil))
        let start = clock.now
        let value = try await body()
        let seconds = (clock.now - start).seconds
        report.seconds[stage.rawValue] = seconds
        events(.finished(stage, seconds: seconds))
        return value
    }

    /// Renditions as the site names them (`images/<name>`).
    private func publicImage(_ image: ProcessedImage) -> ProcessedImage {
        var image = image
        image.renditions = image.renditions.map { rendition in
            var rendition = rendition
            rendition.path = publicPath(of: rendition)
            return rendition
        }
        return image
    }

    private func publicPath(of rendition: Rendition) -> String {
        "images/" + rendition.fileName
    }

    /// URLs as they are; local files relative to the site folder, so that output does not depend
    /// on where the site is checked out.
    private func displayName(of source: URL) -> String {
        guard source.isFileURL else { return source.absoluteString }
        return relativeName(of: source)
    }

    private func relativeName(of file: URL) -> String {
        let site =
            layout.siteDirectory.path.hasSuffix("/") ? layout.siteDirectory.path : layout.siteDirectory.path + "/"
        let path = file.standardizedFileURL.path
        return path.hasPrefix(site) ? String(path.dropFirst(site.count)) : path
    }
}

/// A file the build could not write, printed in the system's words.
struct FileWriteFailure: Error, Sendable, CustomStringConvertible {
    let error: NSError

    init(_ error: NSError) {
        self.error = error
    }

    var description: String { BuildSession.describe(fileError: error) }
}

/// Items done per stage, counted from many tasks.
final class StageCounter: Sendable {
    private let counts = Mutex<[BuildStage: Int]>([:])

    /// Counts one more item of `stage`; returns the new count.
    func increment(_ stage: BuildStage) -> Int {
        counts.withLock { counts in
            counts[stage, default: 0] += 1
            return counts[stage, default: 0]
        }
    }
}

/// What became of one photo.
enum PhotoOutcome: Sendable {
    /// `warnings` are about the photo's loading, named; `imagingWarnings` are libvips' about its
    /// bytes, unnamed (the same for every photo with those bytes).
    case done(
        original: Original, image: ProcessedImage, wasProcessed: Bool, warnings: [String], imagingWarnings: [String])
    case failed(BuildReport.Failure, original: Original?, warnings: [String])

    var image: ProcessedImage? {
        if case .done(_, let image, _, _, _) = self { return image }
        return nil
    }

    var original: Original? {
        switch self {
        case .done(let original, _, _, _, _): original
        case .failed(_, let original, _): original
        }
    }

    var warnings: [String] {
        switch self {
        case .done(_, _, _, let warnings, _), .failed(_, _, let warnings): warnings
        }
    }

    var failureMessage: String? {
        if case .failed(let failure, _, _) = self { return failure.message }
        return nil
    }
}
