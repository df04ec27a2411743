import BuildStore
import Feed
import Foundation
import GalleryConcurrency
import GalleryCore
import Loading
import Reporting

/// What the steps of one build share: the report they fill, and what each step leaves for the
/// ones after it.
struct BuildContext {
    var report = BuildReport()
    /// Where the build's events go (the console, a JSON line stream, `serve`).
    let events: SiteBuilder.EventHandler
    /// The HTTP loader's counts when the build began (the loader outlives builds in `serve`).
    let statisticsBefore: TransferStatistics
    /// The feed as read: its albums and what it skipped (its photos are the ``items``).
    var feed = FeedDocument(photos: [], skipped: [])
    /// The feed's content hash (for a folder, ``BuildSession/folderFeedKey(_:)``).
    var feedSHA256: String?
    /// When the build began, by its clock: a site file written less than
    /// ``SourceStamp/settleNanoseconds`` before is not vouched for by its stamp.
    let startedAt: Date
    /// The photos this build makes (a shard's share with `--shard`), each with what the steps
    /// have added to it so far.
    var items: [BuildItem] = []
    /// The previous build's file list and the seconds it took to read, read while photos load
    /// (after them in a `--refresh` that may end up to date, writing nothing). With the files
    /// the last build published as the build store recorded them.
    var previousManifest: Task<PreviousManifest, Never>?
    /// The originals of the Live Photos' motions (``BuildSession/makeMotions(_:)``), for a shard
    /// to hand to the remote cache.
    var motionOriginals: [Original] = []
    /// What visitors can download (`downloads:`).
    var downloads = PlannedDownloads()
    /// The pages and files the last build recorded in the output (``RenderedPages``), when a step
    /// before the render step read them (the downloads' originals): the render step reads them
    /// once, not again.
    var renderedPages: RenderedPages?
    /// The output being staged, from the render step on.
    var staging: OutputWriter.Staging?
    var site: BuildSession.RenderedSite?
    /// Set by a step after which the build has nothing more to do (a shard's, once shared).
    var isDone = false
    /// What the build will vouch for if it ends clean (``BuildSession/pendingUpToDate``).
    var upToDate: PendingUpToDate?
    /// What the last build vouched for, read by a `--refresh` build before it takes it back: the
    /// site a refresh that finds nothing changed upstream keeps.
    var refreshBaseline: (published: PublishedFiles, record: UpToDateRecord)?

    init(statisticsBefore: TransferStatistics, events: @escaping SiteBuilder.EventHandler, startedAt: Date) {
        self.statisticsBefore = statisticsBefore
        self.events = events
        self.startedAt = startedAt
    }

    /// A warning: in the report, and said as it happens.
    mutating func warn(_ warning: String) {
        report.warn(warning, to: events)
    }

    /// A photo that failed: said as it happens, and in the report.
    mutating func fail(_ failure: BuildReport.Failure) {
        events(.failed(failure))
        report.failures.append(failure)
    }
}

/// What the previous build published, as this build reads it while its photos load.
struct PreviousManifest: Sendable {
    /// Its files, by path in the output folder; nil when there was no previous build.
    var files: [String]?
    /// The seconds the read took (the report's `manifest` stage).
    var seconds: Double
    /// Its files as the build store recorded them (size, stamp, hash).
    var recorded: PublishedFiles?

    /// No previous build's manifest read (a shard writes no site).
    static let unread = PreviousManifest(files: nil, seconds: 0, recorded: nil)
}

/// One named step of the pipeline: a loop runs the steps in order over one ``BuildContext``,
/// times each that is a stage of the report, stops between two when the build is cancelled, and
/// names the step in the error of one that fails.
struct BuildStep {
    var name: String
    /// The stage of the report and of the progress display this step is, if it is one.
    var stage: BuildStage?
    var run: (inout BuildContext) async throws(BuildError) -> Void
}

extension BuildSession {
    /// The pipeline: check, feed, shard, claim, photos, share, render, write.
    var steps: [BuildStep] {
        [
            BuildStep(name: "check whether anything changed", stage: .check) { context in
                await checkUpToDate(&context)
            },
            BuildStep(name: "read the feed", stage: .feed) { context throws(BuildError) in try await readFeed(&context)
            },
            BuildStep(name: "pick the shard's photos") { context throws(BuildError) in
                try await pickShard(&context)
            },
            BuildStep(name: "claim the photos") { context in await claimPhotos(&context) },
            // Timed inside: loading and making thumbnails overlap, each reported as its own stage.
            BuildStep(name: "load the photos and make their thumbnails") { context throws(BuildError) in
                try await loadPhotos(&context)
            },
            BuildStep(name: "make the Live Photos' motion") { context in await makeMotions(&context) },
            BuildStep(name: "put the clips' times in their photos' zone") { context in placeClipTimes(&context) },
            BuildStep(name: "hand the shard's work to the remote cache") { context throws(BuildError) in
                try await shareShard(&context)
            },
            BuildStep(name: "check that the site shows a photo") { context in keepSiteWithoutPhotos(&context) },
            BuildStep(name: "choose the downloads") { context in await chooseDownloads(&context) },
            BuildStep(name: "render the pages", stage: .render) { context throws(BuildError) in
                try await renderPages(&context)
            },
            BuildStep(name: "write the site", stage: .write) { context throws(BuildError) in
                try await writeSite(&context)
            },
        ]
    }

    /// Runs the steps, then fills in the counts every build reports.
    func runSteps(statisticsBefore: TransferStatistics) async throws(BuildError) -> (
        BuildReport, String?, PendingUpToDate?
    ) {
        var context = BuildContext(statisticsBefore: statisticsBefore, events: events, startedAt: options.clock.now)
        remote?.beginBuild()
        for warning in [cache.storeProblem.map { "cache store \($0)" }, remoteWarning].compactMap({ $0 }) {
            context.warn(warning)
        }
        // Relative to the site, like every path in the report and the manifest: the same site
        // checked out elsewhere gives the same report.
        context.report.output = relativeName(of: layout.outputDirectory)
        for step in steps {
            guard !context.isDone else { break }
            do throws(BuildError) {
                // The write step, once begun, runs to the end: the output is replaced as a whole
                // or not at all. Between steps, a cancelled build stops.
                guard !Task.isCancelled else { throw .interrupted }
                if let stage = step.stage {
                    try await timed(stage, into: &context) { context throws(BuildError) in try await step.run(&context)
                    }
                } else {
                    try await step.run(&context)
                }
            } catch {
                // Its read of the store ends before the store may be closed.
                _ = await context.previousManifest?.value
                context.staging?.abandon()
                // Fetched for the downloads only (`no-store`): not kept by a build that failed.
                for file in context.downloads.transient { try? FileManager.default.removeItem(at: file) }
                var error = error
                if error.code != .interrupted { error.step = step.name }
                throw error
            }
        }
        // A build that ended before its write step (a site without photos, a shard) still waits
        // for the previous manifest's read: the store may be closed once the build returns (a
        // read still under way then crashed a build of an emptied folder in SQLite).
        _ = await context.previousManifest?.value
        countTransfers(into: &context.report, since: statisticsBefore)
        let (report, feedSHA256, upToDate) = (context.report, context.feedSHA256, context.upToDate)
        // 100,000 photos' worth of values are freed on another thread, not on the build's path.
        let parts = (context.feed, context.items, context.site)
        context = BuildContext(statisticsBefore: statisticsBefore, events: events, startedAt: context.startedAt)
        releaseInBackground(parts)
        return (report, feedSHA256, upToDate)
    }

    private func timed(
        _ stage: BuildStage, into context: inout BuildContext,
        _ body: (inout BuildContext) async throws(BuildError) -> Void
    ) async throws(BuildError) {
        events(.started(stage, total: nil))
        let start = clock.now
        try await body(&context)
        let seconds = (clock.now - start).seconds
        context.report.seconds[stage.rawValue] = seconds
        events(.finished(stage, seconds: seconds))
    }

    // MARK: Steps

    private func readFeed(_ context: inout BuildContext) async throws(BuildError) {
        // The cache's URL records, read once, off any lock: the feed's and the photos' loads use them.
        await cache.files.readRecords()
        // The local files' hashes only the photos' loads use: read while the feed is (a folder of
        // 100,000 photos has as many).
        async let digests: Void = cache.digests.read()
        // Shared in the document as it comes back, its only holder: not in a copy of its photos.
        var read = try await readFeed()
        await digests
        read.0.redact(redaction)
        read.0.shareAlbumPaths()
        let (feed, feedSHA256, feedWarning) = read
        context.feedSHA256 = feedSHA256
        for warning in [feedWarning, Self.postsLeftOutWarning(feed.postsLeftOut)].compactMap({ $0 }) + feed.warnings {
            context.warn(warning)
        }
        context.items = await feed.photos.concurrentMap { BuildItem(photo: $0, source: CanonicalURL($0.source)) }
        context.report.counts.photos = feed.photos.count
        // The items hold the photos from here on: 100,000 of them are not kept twice.
        context.feed = feed
        context.feed.photos = []
        context.report.counts.skipped = feed.skipped.count
        for issue in feed.skipped {
            let failure = BuildReport.Failure(
                index: issue.index, id: nil, url: nil, stage: "feed", cause: "no usable image URL", host: nil,
                message: issue.message)
            context.fail(failure)
        }
    }

    /// One line for the posts a service's feed held that the site does not publish.
    static func postsLeftOutWarning(_ leftOut: [String: Int]) -> String? {
        let total = leftOut.values.reduce(0, +)
        guard total > 0 else { return nil }
        let names = [
            "followers-only": "followers-only", "direct": "direct", "unlisted": "unlisted",
            "sensitive": "marked sensitive or behind a content warning",
        ]
        let parts = leftOut.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { reason, count in
            "\(count) \(names[reason] ?? "of visibility \"\(reason.prefix(40))\"")"
        }
        var hints: [String] = []
        if leftOut["unlisted"] != nil { hints.append("`feed.visibility: unlisted` publishes unlisted posts too") }
        if leftOut["sensitive"] != nil {
            hints.append("`feed.sensitive: behind_warning` publishes sensitive posts behind their warning")
        }
        let hint = hints.isEmpty ? "" : " (\(hints.joined(separator: "; ")))"
        return "feed: \(total) \(total == 1 ? "post" : "posts") with photos left out (followers-only and direct "
            + "posts are never published): \(parts.joined(separator: ", "))\(hint)"
    }

    private func pickShard(_ context: inout BuildContext) async throws(BuildError) {
        guard let shard = options.shard else { return }
        context.items = try await shardsItems(shard, of: context.items, report: &context.report)
        context.report.counts.photos = context.items.count
    }

    /// Claims this build's URLs before an older build is let go (`serve`), so that shared loads
    /// are joined, then starts reading the previous build's manifest: needed only to write, it
    /// is read while the photos load (not before: until the build this one supersedes has ended,
    /// it may still write one). A `--refresh` that may find nothing changed, and so write
    /// nothing, reads it once it knows it will write (the load step).
    private func claimPhotos(_ context: inout BuildContext) async {
        await loader.claim(Set(context.items.compactMap(\.source)))
        if case .preview(_, let supersede) = mode { await supersede?() }
        if context.refreshBaseline == nil { readPreviousManifest(&context) }
    }

    /// Loads every photo and makes its thumbnails; a `--refresh` whose check finds every copy
    /// unchanged upstream ends there, its site as it was.
    private func loadPhotos(_ context: inout BuildContext) async throws(BuildError) {
        let check = unchangedSiteCheck(context)
        if check == nil { readPreviousManifest(&context) }
        switch try await processPhotos(
            &context.items, stamps: context.feed.photoStamps, report: &context.report, unchangedSite: check)
        {
        case .siteUnchanged(let check):
            endUnchangedRefresh(check, &context)
        case .made:
            readPreviousManifest(&context)
            leaveOutClipsWithoutFFmpeg(&context)
        }
    }

    /// Starts reading the files the previous build published, once (a shard writes no site).
    private func readPreviousManifest(_ context: inout BuildContext) {
        guard options.shard == nil, context.previousManifest == nil else { return }
        let writer = OutputWriter(directory: layout.outputDirectory)
        let store = self.store
        context.previousManifest = Task { [clock] in
            let start = clock.now
            let recorded = try? await store.publishedFiles()
            return PreviousManifest(
                files: writer.previousFiles(recorded: recorded), seconds: (clock.now - start).seconds,
                recorded: recorded)
        }
    }

    /// A shard's work reaches the final build through the remote tier alone: shared, and the
    /// shard is done.
    private func shareShard(_ context: inout BuildContext) async throws(BuildError) {
        guard let shard = options.shard else { return }
        try await shareMissing(context.items, motions: context.motionOriginals, shard: shard)
        context.isDone = true
    }

    /// A build whose site would show no photo (a folder emptied, a bucket or share that listed
    /// nothing for a moment, a host that failed every photo) writes nothing: the previous site
    /// stays as it was, whole, and `serve` keeps serving it. The build fails
    /// (``BuildResult/failure(strict:)``) and leaves no up-to-date record.
    private func keepSiteWithoutPhotos(_ context: inout BuildContext) {
        guard !context.items.contains(where: { $0.outcome?.image != nil }) else { return }
        context.report.outputKept = true
        context.isDone = true
    }

    private func renderPages(_ context: inout BuildContext) async throws(BuildError) {
        // The outcomes hold all the render and write stages need: what the loader and the
        // rendition store remember is let go before the pages are made (the build's peak).
        // `gallerygen serve`'s loader keeps it: a build that supersedes this one reuses it.
        await renditions.forgetFinished()
        if case .standalone = mode { await loader.forgetLoaded() }
        let staging: OutputWriter.Staging
        do {
            staging = try OutputWriter.Staging(OutputWriter(directory: layout.outputDirectory))
        } catch {
            throw outputError(error as NSError)
        }
        context.staging = staging
        context.site = try await render(
            context.items, albums: context.feed.albums, recorded: context.renderedPages.take(), into: staging)
    }

    private func chooseDownloads(_ context: inout BuildContext) async {
        guard config.downloads != .off else { return }
        let previous = await context.previousManifest?.value.files
        // The hashes the last build recorded for the originals it published (what the render
        // step reads for its pages): one still as stamped is not cleaned again.
        if config.downloads == .original {
            context.renderedPages = await RenderedPages.load(from: store, outputDirectory: layout.outputDirectory)
        }
        let pages = context.renderedPages
        context.downloads = await planDownloads(
            for: &context.items, previous: previous, recorded: { path in pages?.recorded(path) })
        for warning in context.downloads.warnings {
            context.warn(warning)
        }
    }

    private func writeSite(_ context: inout BuildContext) async throws(BuildError) {
        guard let site = context.site, let staging = context.staging else { return }
        // Read while the photos loaded.
        let manifest = await context.previousManifest?.value ?? .unread
        let (previous, recorded) = (manifest.files, manifest.recorded)
        context.report.seconds["manifest"] = manifest.seconds
        let transient = context.downloads.transient
        defer {
            // Fetched again for the downloads only, from an answer that said `no-store`.
            for file in transient { try? FileManager.default.removeItem(at: file) }
        }
        let (written, thumbnails) = try await write(
            pagePaths: site.paths, items: context.items, downloads: context.downloads.files + site.zips, into: staging,
            previous: previous, record: site.record)
        // Written: nothing is left to abandon.
        context.staging = nil
        context.report.counts.pagesRendered = site.rendered.count
        context.report.counts.pagesUnchanged = site.kept.count
        context.report.counts.filesWritten = written.written
        context.report.counts.filesRemoved = written.removed
        context.report.counts.bytesWritten = written.bytesWritten
        // Only ever saves work: a build that cannot record its pages renders them next time.
        if let sources = site.sources {
            try? await site.record.save(
                rendered: site.rendered + thumbnails.checked, kept: site.kept + thumbnails.kept, sources: sources,
                to: store)
        }
        // Only ever saves work too: without it, the next build reads the manifest.
        if let published = OutputWriter(directory: layout.outputDirectory).published(written.files) {
            try? await store.savePublishedFiles(published, replacing: recorded)
            context.upToDate = await pendingUpToDate(
                report: context.report, items: context.items, published: published,
                introSHA256: site.introSHA256,
                localInputs: localInputs(feed: context.feed, startedAt: context.startedAt))
        }
        try? FileManager.default.removeItem(
            at: layout.cacheDirectory.appendingPathComponent(RenderedPages.legacyFileName))
    }
}
