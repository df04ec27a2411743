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
    /// The published site to start warm from; never with --offline.
    let seed: SiteSeed?
    /// The remote cache tier; never with --offline.
    let remote: RemoteCache?
    /// Why the configured remote cache is not used.
    let remoteWarning: String?
    /// The site's secret (`GALLERYGEN_REMOTE_CACHE_KEY`): the manifest's records are signed with
    /// it, and a seeded build takes only records it signed.
    var signingKey: SigningKey? { options.signingKey }

    /// `--remote-cache` or `remote_cache:`, unless --offline (which asks nobody).
    static func remoteLocation(options: BuildOptions, config: SiteConfig) -> String? {
        options.offline ? nil : options.remoteCache ?? config.remoteCache
    }
    let renderer: SiteRenderer
    let supersede: (@Sendable () async -> Void)?
    /// A build alone in its process waits, when interrupted, for what it started (transfers
    /// deleting their partial files, encodes under way); a build of `serve` leaves shared loads
    /// to the build that replaced it.
    let waitsWhenInterrupted: Bool
    let clock = ContinuousClock()

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
                offline: options.offline,
                remoteCache: Self.remoteLocation(options: options, config: config),
                signingKey: options.signingKey
            )
        )
        self.remote = environment.remote
        self.remoteWarning = environment.remoteWarning
        self.cache = environment.cache
        self.http = environment.http
        self.loader = environment.loader
        let perHost = options.perHost ?? config.perHost
        self.seed = (options.offline ? nil : options.seed ?? config.seed).flatMap(URL.init(string:)).map {
            SiteSeed(base: $0, client: resources.client, concurrency: perHost, signingKey: options.signingKey)
        }
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
                effort: config.images.effort,
                seed: seed,
                remote: environment.remote
            )
        } catch {
            throw BuildError(.imaging, underlying: error)
        }
        do {
            self.renderer = try await SiteRenderer(
                configuration: SiteRenderer.Configuration(
                    themeDirectory: layout.themeDirectory, pageSize: config.pageSize, grid: config.grid,
                    showsCameraDetails: config.showsCameraDetails)
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
            try renditions.persistUses()
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

    func runStages(statisticsBefore: TransferStatistics) async throws(BuildError) -> (BuildReport, String?) {
        var report = BuildReport()
        remote?.beginBuild()
        for warning in [cache.storeProblem.map { "cache store \($0)" }, remoteWarning].compactMap({ $0 }) {
            report.warnings.append(warning)
            events(.warning(warning))
        }
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
        var photos = feed.photos
        var sources = await photos.concurrentMap { CanonicalURL($0.source) }
        if let shard = options.shard {
            (photos, sources) = try await shardsPhotos(shard, of: feed.photos, sources: sources, report: &report)
        }
        // Claim this build's URLs before an older build is let go, so shared loads are joined.
        await loader.claim(Set(sources.compactMap { $0 }))
        await supersede?()
        // The previous build's manifest (needed only to write) is read while the photos load.
        // Not before: until the build this one supersedes has ended, it may still write one.
        let writer = OutputWriter(directory: layout.outputDirectory)
        let writesPages = options.shard == nil
        async let previousManifest = { [clock] in
            let start = clock.now
            return (writesPages ? writer.previousFiles() : nil, (clock.now - start).seconds)
        }()
        report.counts.photos = photos.count
        report.counts.skipped = feed.skipped.count
        for issue in feed.skipped {
            let failure = BuildReport.Failure(
                index: issue.index, id: nil, url: nil, stage: "feed", cause: "no usable image URL", host: nil,
                message: issue.message)
            events(.failed(failure))
            report.failures.append(failure)
        }

        let outcomes = try await processPhotos(photos, sources: sources, report: &report)
        guard !Task.isCancelled else { throw .interrupted }
        if let shard = options.shard {
            // A shard's work reaches the final build through the remote tier alone.
            try await shareMissing(outcomes, shard: shard)
            guard !Task.isCancelled else { throw .interrupted }
            countTransfers(into: &report, since: statisticsBefore)
            return (report, feedSHA256)
        }

        // The outcomes hold all the render and write stages need: what the loader and the
        // rendition store remember is let go before the pages are made (the build's peak).
        // `gallerygen serve`'s loader keeps it: a build that supersedes this one reuses it.
        await renditions.forgetFinished()
        if waitsWhenInterrupted { await loader.forgetLoaded() }

        let staging: OutputWriter.Staging
        do {
            staging = try OutputWriter.Staging(writer)
        } catch {
            throw outputError(error as NSError)
        }
        let site: RenderedSite
        do {
            site = try await timed(.render, into: &report) { () throws(BuildError) in
                try await render(feed: feed, outcomes: outcomes, into: staging)
            }
        } catch {
            staging.abandon()
            throw error
        }
        guard !Task.isCancelled else {
            staging.abandon()
            throw .interrupted
        }

        // From here on the build runs to the end: the output is replaced as a whole or not at all.
        let (previous, manifestSeconds) = await previousManifest
        report.seconds["manifest"] = manifestSeconds
        let written = try await timed(.write, into: &report) { () throws(BuildError) in
            let (written, thumbnails) = try write(
                pagePaths: site.paths, outcomes: outcomes, photos: feed.photos, into: staging, previous: previous,
                record: site.record)
            // Only ever saves work: a build that cannot record its pages renders them next time.
            if let sources = site.sources {
                try? site.record.save(
                    rendered: site.rendered + thumbnails.checked, kept: site.kept + thumbnails.kept, sources: sources,
                    to: cache.buildStore)
            }
            try? FileManager.default.removeItem(
                at: layout.cacheDirectory.appendingPathComponent(RenderedPages.legacyFileName))
            return written
        }
        report.counts.pagesRendered = site.rendered.count
        report.counts.pagesUnchanged = site.kept.count
        report.counts.filesWritten = written.written
        report.counts.filesRemoved = written.removed
        report.counts.bytesWritten = written.bytesWritten
        countTransfers(into: &report, since: statisticsBefore)
        releaseInBackground((feed, photos, sources, outcomes, site))
        return (report, feedSHA256)
    }

    /// Requests and bytes of this build, what the remote tier did, and the failures in order.
    private func countTransfers(into report: inout BuildReport, since statisticsBefore: TransferStatistics) {
        let transfers = http.statistics
        report.counts.requests = transfers.requests - statisticsBefore.requests
        report.counts.bytesTransferred = transfers.bodyBytes - statisticsBefore.bodyBytes
        if let remote {
            let statistics = remote.statistics
            report.remoteCache = BuildReport.RemoteCacheCounts(
                store: remote.store.displayName, recordsFound: statistics.recordsFound,
                setsFound: statistics.setsFound, misses: statistics.misses, uploads: statistics.uploads,
                failures: statistics.failures)
            for warning in remote.warnings {
                report.warnings.append(warning)
                events(.warning(warning))
            }
        } else if let location = Self.remoteLocation(options: options, config: config) {
            // Configured, but not usable here (its credentials are missing): --strict fails on it.
            report.remoteCache = BuildReport.RemoteCacheCounts(store: location, failures: 1)
        }
        report.failures.sort { ($0.index, $0.stage) < ($1.index, $1.stage) }
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

    func timed<Value>(
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

    /// URLs as they are; local files relative to the site folder, so that output does not depend
    /// on where the site is checked out.
    func displayName(of source: URL) -> String {
        guard source.isFileURL else { return source.absoluteString }
        return relativeName(of: source)
    }

    func relativeName(of file: URL) -> String {
        let site =
            layout.siteDirectory.path.hasSuffix("/") ? layout.siteDirectory.path : layout.siteDirectory.path + "/"
        let path = file.standardizedFileURL.path
        return path.hasPrefix(site) ? String(path.dropFirst(site.count)) : path
    }
}
