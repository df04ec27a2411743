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

/// One run of the pipeline with everything its steps share (loader, rendition store, renderer);
/// the steps are in BuildSteps.swift.
struct BuildSession: Sendable {
    let config: SiteConfig
    let layout: SiteLayout
    let options: BuildOptions
    let events: SiteBuilder.EventHandler
    let loader: ImageLoader
    let http: HTTPLoader
    let cache: BuildCache
    /// What a build remembers, handed by the build's resources (``BuildResources/Environment``).
    let store: BuildStore
    let renditions: RenditionStore
    /// The published site to start warm from; never with --offline.
    let seed: SiteSeed?
    /// The remote cache tier; never with --offline.
    let remote: RemoteCache?
    /// The build's secrets, taken out of what the feed says (``BuildSecrets``).
    let redaction: Redaction
    /// Why the configured remote cache is not used.
    let remoteWarning: String?
    /// The site's secret (`GALLERYGEN_REMOTE_CACHE_KEY`): the manifest's records are signed with
    /// it, and a seeded build takes only records it signed.
    var signingKey: SigningKey? { options.signingKey }

    /// The feed's secret, read from the variable `feed.auth` names, for the feed's own origin.
    /// A variable that is not set stops the build (unless --offline, which sends no request).
    static func credentials(config: SiteConfig, layout: SiteLayout, options: BuildOptions) throws(BuildError)
        -> RequestCredentials?
    {
        if URL(string: config.feed.url)?.scheme?.lowercased() == "s3", case .remote(let listing) = layout.feed {
            // A bucket's keys are the AWS tools' own variables; without them the bucket is read
            // as a public one, unsigned.
            if let auth = config.feed.credentials {
                throw BuildError(
                    .configuration,
                    "\(auth.location.map { "\($0): " } ?? "")`feed.auth` is not used with an s3:// feed: its keys "
                        + "come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
            }
            let s3 = S3Environment(options.environment)
            return s3.credentials.flatMap { keys in
                RequestCredentials(signer: SigV4Signer(credentials: keys, region: s3.region), for: listing)
            }
        }
        guard let auth = config.feed.credentials else { return nil }
        let place = auth.location.map { "\($0): " } ?? ""
        guard case .remote(let url) = layout.feed else {
            throw BuildError(
                .configuration, "\(place)`feed.auth` is for a feed read over http or https; this feed is read from disk"
            )
        }
        guard let secret = options.environment[auth.variable] else {
            if options.offline { return nil }
            throw BuildError(
                .configuration,
                "\(place)`feed.auth` takes the secret from the environment variable \(auth.variable), which is not "
                    + "set; set it (in CI, from the repository's secrets)")
        }
        return RequestCredentials(kind: auth.kind, secret: secret, for: url)
    }

    /// `--remote-cache` or `remote_cache:`, unless --offline (which asks nobody).
    static func remoteLocation(options: BuildOptions, config: SiteConfig) -> String? {
        options.offline ? nil : options.remoteCache ?? config.remoteCache
    }
    let renderer: SiteRenderer
    let mode: BuildMode
    let clock = ContinuousClock()
    /// What the up-to-date check compares besides the intro, the feed and the cache's folders
    /// (``upToDateSettings()``), taken before the templates are read.
    let upToDateSettings: String

    init(
        config: SiteConfig,
        layout: SiteLayout,
        options: BuildOptions,
        resources: BuildResources,
        mode: BuildMode,
        events: @escaping SiteBuilder.EventHandler,
        redaction: Redaction = Redaction(secrets: [])
    ) async throws(BuildError) {
        self.redaction = redaction
        self.config = config
        self.layout = layout
        self.options = options
        self.events = events
        self.mode = mode
        let environment = try resources.environment(
            for: BuildResources.Environment.Key(
                cacheDirectory: layout.cacheDirectory,
                concurrency: options.concurrency ?? config.concurrency,
                perHost: options.perHost ?? config.perHost,
                maxImageBytes: config.maxImageBytes,
                maxVideoBytes: config.video.maxBytes,
                refresh: options.refresh,
                full: options.full,
                offline: options.offline,
                remoteCache: Self.remoteLocation(options: options, config: config),
                signingKey: options.signingKey,
                credentials: try Self.credentials(config: config, layout: layout, options: options),
                clock: options.clock
            )
        )
        self.remote = environment.remote
        self.remoteWarning = environment.remoteWarning
        self.cache = environment.cache
        self.store = environment.cache.store
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
                remote: environment.remote,
                locationPlaces: config.location.places,
                videoSettings: config.video,
                clock: options.clock,
                footageChanged: { done, total in events(.footage(done: done, total: total)) }
            )
        } catch {
            throw BuildError(.imaging, underlying: error)
        }
        self.upToDateSettings = Self.upToDateSettings(
            config: config, layout: layout, options: options, recipe: renditions.recipe)
        do {
            self.renderer = try await SiteRenderer(
                configuration: SiteRenderer.Configuration(
                    themeDirectory: layout.themeDirectory, pageSize: config.pageSize, grid: config.grid,
                    showsCameraDetails: config.showsCameraDetails, keywordPages: config.keywordPages,
                    location: config.location, albums: config.albums, tileCaptions: config.tileCaptions,
                    language: config.language)
            )
        } catch {
            throw BuildError(.theme, underlying: error)
        }
    }

    /// Runs the stages; whatever happens, keeps what the cache learned.
    func run() async throws(BuildError) -> (BuildReport, String?) {
        // A preview build that replaces another keeps what the loader finished for it.
        if case .preview(_, let supersede) = mode {
            await loader.beginBuild(keepingFinished: supersede != nil)
        } else {
            await loader.beginBuild(keepingFinished: false)
        }
        let statisticsBefore = http.statistics
        let result: Result<(BuildReport, String?, PendingUpToDate?), BuildError>
        do {
            result = .success(try await runSteps(statisticsBefore: statisticsBefore))
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result, error.code == .interrupted, case .standalone = mode {
            // Cancelled transfers delete their partial files and encodes under way finish:
            // nothing is left half-written when the process exits.
            await loader.cancelAndDrain()
            await renditions.drain()
        }
        var cacheWarning: String?
        do {
            try await renditions.persistUses()
            try await cache.files.persist()
            // A build that read the whole feed forgets the files it no longer has.
            let complete = if case .success = result { options.shard == nil } else { false }
            try await cache.digests.persist(pruning: complete)
            // A build with nothing to do added nothing, and used nothing it would mark as used.
            if let limit = config.cacheLimit, case .success(let (report, _, _)) = result, !report.upToDate {
                let (_, remaining) = try await cache.evict(toFit: limit)
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
        // Where the build's writes to the store end: they are folded into its one file.
        await cache.checkpoint()
        var (report, feedSHA256, upToDate) = try result.get()
        if let cacheWarning {
            report.warn(cacheWarning, to: events)
        }
        let untranslated = config.language.untranslated
        if !untranslated.isEmpty {
            let warning =
                "language \(config.language.tag): gallerygen has no strings of its own in it, so "
                + "\(untranslated.count) of the theme's strings are in English (\(untranslated.prefix(4).joined(separator: ", "))"
                + (untranslated.count > 4 ? ", ..." : "")
                + "); give them under `strings:` in gallery.yml (docs/languages.md lists them)"
            report.warn(warning, to: events)
        }
        // Last: only a build that ended clean, its cache written and evicted, vouches for its site.
        if let upToDate { await saveUpToDate(upToDate, report: report, feedSHA256: feedSHA256) }
        return (report, feedSHA256)
    }

    /// Requests and bytes of this build, what the remote tier did, and the failures in order.
    func countTransfers(into report: inout BuildReport, since statisticsBefore: TransferStatistics) {
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
                report.warn(warning, to: events)
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

    /// URLs as they are; local files relative to the site folder, so that output does not depend
    /// on where the site is checked out.
    func displayName(of source: URL) -> String {
        guard source.isFileURL else { return source.absoluteString }
        return relativeName(of: source)
    }

    func relativeName(of file: URL) -> String {
        let site =
            layout.siteDirectory.path.hasSuffix("/") ? layout.siteDirectory.path : layout.siteDirectory.path + "/"
        let written = file.path
        let path = written.isStandardPath ? written : file.standardizedFileURL.path
        return path.hasPrefix(site) ? String(path.dropFirst(site.count)) : path
    }
}
