import BuildStore
import Foundation
import GalleryConcurrency
import GalleryCore
import Loading
import Rendering
import Reporting

/// The up-to-date check: a build whose inputs are those of the build that published the output,
/// while every URL that build used is still fresh in the cache and every file it published is as
/// it left it (and the cache's folders hold the files it left), would write the same files again;
/// it has nothing to do, and says so.
///
/// The build that published vouches for the folder (``UpToDateRecord``) only when it was clean:
/// no failure, no warning, no local photo (a local file's change is seen only by reading it) and
/// a feed that is not a folder. Every other build takes the record back before it changes
/// anything (``BuildStore/forgetUpToDate()``), so a build killed on the way leaves nothing to
/// trust.
extension BuildSession {
    /// Whether this build may leave a record: a standalone build of the whole feed that asks the
    /// servers (not `--offline`), of a feed that is not a folder.
    private var leavesUpToDate: Bool {
        guard case .standalone = mode, options.shard == nil, !options.offline else { return false }
        if case .folder = layout.feed { return false }
        return true
    }

    /// Whether this build may end at once on a record: one that may leave one and sends the
    /// requests a rebuild would (not `--refresh`). `--full` builds in full and leaves a record.
    private var usesUpToDate: Bool {
        leavesUpToDate && !options.refresh
    }

    /// Ends the build at once when nothing changed; otherwise takes back what the last build
    /// vouched for, before anything is changed.
    func checkUpToDate(_ context: inout BuildContext) async {
        let store = self.store
        if leavesUpToDate, options.refresh, !options.full {
            // Asks about every URL first (``unchangedSiteCheck(_:)``).
            context.refreshBaseline = try? await store.upToDate()
        } else if usesUpToDate, !options.full, let feedSHA256 = await currentFeedSHA256(),
            let (published, record) = try? await store.upToDate(),
            options.clock.now.timeIntervalSince1970 < record.freshUntil,
            record.inputs == upToDateInputs(introSHA256: currentIntroSHA256(), feedSHA256: feedSHA256),
            await isAsLeft(published, record)
        {
            context.feedSHA256 = feedSHA256
            context.report.upToDate = true
            context.report.counts.photos = record.photos
            context.report.counts.urls = record.urls
            context.report.counts.fresh = record.urls
            context.report.counts.pagesUnchanged = record.pages
            context.isDone = true
            return
        }
        do {
            try await store.forgetUpToDate()
        } catch {
            // The record's inputs and stamps still guard it; the build says so, and leaves none.
            let warning =
                "cache store \(store.file?.path ?? "in memory"): cannot take back the last build's record of "
                + "what it published (\(error)); this build leaves none"
            context.warn(warning)
        }
    }

    /// What this build would vouch for, taken once its files are written (the stamps of what it
    /// published, and until when the URLs it used stay fresh); nil when it may leave none.
    /// Written only once the build has ended clean (``saveUpToDate(_:report:feedSHA256:)``).
    func pendingUpToDate(
        report: BuildReport, items: [BuildItem], published: PublishedFiles, introSHA256: String?
    ) async -> PendingUpToDate? {
        guard leavesUpToDate, Self.isClean(report) else { return nil }
        guard let freshUntil = freshUntil(of: items), let stamps = await stamps(of: published)
        else { return nil }
        let record = UpToDateRecord(
            inputs: "", freshUntil: freshUntil, photos: report.counts.photos, urls: report.counts.urls,
            pages: report.counts.pagesRendered + report.counts.pagesUnchanged, files: stamps)
        return PendingUpToDate(record: record, published: published, introSHA256: introSHA256)
    }

    /// Until when every URL the build used stays fresh: the photos', their Live Photos' motions'
    /// (only a folder has them today, and a folder's build vouches for nothing) and the feed's.
    /// Nil when one is not in the cache.
    private func freshUntil(of items: [BuildItem]) -> Double? {
        var urls = items.compactMap { $0.source?.description }
        urls += items.compactMap { $0.photo.motion.flatMap(CanonicalURL.init)?.description }
        if case .remote(let url) = layout.feed, let feed = CanonicalURL(url) { urls.append(feed.description) }
        return cache.files.freshUntil(of: urls)
    }

    /// For a `--refresh` build with the last build's record: the question whether the site that
    /// build published is this build's, asked once every photo's URL has answered that its copy
    /// is unchanged. It is when the inputs are that build's (the feed as read again, the
    /// settings, the intro, the cache's folders) and the output is as it left it. Nil when the
    /// build cannot end that way: no record, something reported already, or a Live Photo (its
    /// motion would be asked about only later).
    func unchangedSiteCheck(_ context: BuildContext) -> UnchangedSiteCheck? {
        guard let (published, record) = context.refreshBaseline, let feedSHA256 = context.feedSHA256,
            Self.isClean(context.report), !context.items.contains(where: { $0.photo.motion != nil })
        else { return nil }
        // Read once: the intro compared is the one the record left will vouch for.
        let introSHA256 = currentIntroSHA256()
        return UnchangedSiteCheck(published: published, record: record, introSHA256: introSHA256) {
            guard record.inputs == upToDateInputs(introSHA256: introSHA256, feedSHA256: feedSHA256)
            else { return false }
            return await isAsLeft(published, record)
        }
    }

    /// Ends a `--refresh` build whose answers changed nothing (``unchangedSiteCheck(_:)``): up to
    /// date, its requests its own and the rest of its counts the last build's, and it vouches
    /// for the site again with the freshness the answers gave.
    func endUnchangedRefresh(_ check: UnchangedSiteCheck, _ context: inout BuildContext) {
        context.report.upToDate = true
        context.report.counts.pagesUnchanged = check.record.pages
        context.isDone = true
        guard let freshUntil = freshUntil(of: context.items) else { return }
        var vouched = check.record
        vouched.inputs = ""
        vouched.freshUntil = freshUntil
        context.upToDate = PendingUpToDate(record: vouched, published: check.published, introSHA256: check.introSHA256)
    }

    /// Writes what the build vouches for, once it has ended (its last warnings known, the cache
    /// written and evicted): only for a build that ended clean.
    func saveUpToDate(_ pending: PendingUpToDate, report: BuildReport, feedSHA256: String?) async {
        guard let feedSHA256, Self.isClean(report), (report.remoteCache?.failures ?? 0) == 0 else { return }
        var record = pending.record
        record.inputs = upToDateInputs(introSHA256: pending.introSHA256, feedSHA256: feedSHA256)
        try? await store.saveUpToDate(record, for: pending.published)
    }

    /// No failure, no warning, no skipped entry and no local photo (a local file's change is
    /// seen only by reading it).
    private static func isClean(_ report: BuildReport) -> Bool {
        report.failures.isEmpty && report.warnings.isEmpty && report.counts.local == 0 && report.counts.skipped == 0
    }

    /// The feed's content hash as a build would read it now, without parsing it: a feed file's
    /// bytes, or a remote feed's cached copy (fresh, or the check fails on `freshUntil`).
    private func currentFeedSHA256() async -> String? {
        switch layout.feed {
        case .file(let file): (try? PlainFile.read(file)).map { sha256Hex(of: $0) }
        case .remote(let url):
            if let source = CanonicalURL(url) {
                await cache.files.storedRecord(for: source.description)?.sha256
            } else {
                nil
            }
        case .folder: nil
        }
    }

    /// The intro's content hash as the render step would read it now (nil: no intro).
    private func currentIntroSHA256() -> String? {
        layout.introFile.map { file in (try? PlainFile.read(file)).map { sha256Hex(of: $0) } ?? "unreadable" }
    }

    /// Whether the output is as the build that vouched left it: the same folder, the manifest and
    /// every file it listed with the size, modification time and inode they had then.
    private func isAsLeft(_ published: PublishedFiles, _ record: UpToDateRecord) async -> Bool {
        let output = layout.outputDirectory
        guard published.output == output.standardizedFileURL.path,
            FileStamp(path: output.appendingPathComponent(Manifest.fileName).path) == published.manifest
        else { return false }
        return await stamps(of: published) == record.files
    }

    /// The stamp of each file of `published` as it is now, in the list's order; nil when one is
    /// missing.
    private func stamps(of published: PublishedFiles) async -> [FileStamp]? {
        let directory = layout.outputDirectory.path
        // A missing file is a negative size: no optional per file (205,000 of them at 100,000 photos).
        let stamps = await published.files.concurrentMap { file in
            FileStamp(path: directory + "/" + file) ?? FileStamp(size: -1, modified: 0, inode: 0)
        }
        return stamps.contains { $0.size < 0 } ? nil : stamps
    }

    /// A hash of everything the build reads besides the photos: the settings (taken when the
    /// session began), the intro and the feed as they were read, and the cache's folders as the
    /// build left them.
    private func upToDateInputs(introSHA256: String?, feedSHA256: String) -> String {
        var inputs = upToDateSettings
        inputs += "intro \(introSHA256 ?? "none")\nfeed \(feedSHA256)\n"
        // Thumbnails or originals removed from the cache are made or fetched again by a build,
        // as they would be without this check.
        for folder in cache.files.fileFolders {
            let status = FileStatus(folder)
            inputs += "cache \(folder.lastPathComponent) \(status?.modifiedNanoseconds ?? 0) \(status?.inode ?? 0)\n"
        }
        return sha256Hex(of: inputs)
    }

    /// gallerygen itself, the config and the options, the signing key, the folders, the recipe of
    /// the thumbnails (libvips' version with it: it is linked, not built in) and the theme's files
    /// (names, sizes and times, of the site's theme and the built-in one). Taken before the
    /// templates are read: a template saved while a build runs is seen by the next one.
    static func upToDateSettings(
        config: SiteConfig, layout: SiteLayout, options: BuildOptions, recipe: ImageRecipe
    ) -> String {
        var settings = ""
        func add(_ text: String) { settings += text + "\n" }
        add("gallerygen up-to-date 2 \(GalleryVersion.current)")
        if let executable = Bundle.main.executableURL, let status = FileStatus(executable) {
            add("\(status.size) \(status.modifiedNanoseconds) \(status.inode)")
        }
        add(String(reflecting: config))
        var options = options
        // How this build was asked to check, not what it makes.
        options.full = false
        options.refresh = false
        // A key's description does not show it: its fingerprint stands for it.
        let key = options.signingKey?.fingerprint ?? "none"
        options.signingKey = nil
        // The environment is where secrets are (its order varies, too): the feed's content hash
        // stands for what they fetched.
        options.environment = [:]
        add(String(reflecting: options))
        add("key \(key)")
        add("recipe " + recipe.setKeyMaterial(originalSHA256: ""))
        for folder in [layout.siteDirectory, layout.outputDirectory, layout.cacheDirectory] { add(folder.path) }
        for folder in [layout.themeDirectory, SiteRenderer.builtInTheme].compactMap({ $0 }) {
            add("theme \(folder.path)")
            let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
            for file in files {
                guard let status = FileStatus(path: folder.path + "/" + file) else { continue }
                add("\(file) \(status.size) \(status.modifiedNanoseconds) \(status.inode)")
            }
        }
        return settings
    }
}

/// How a `--refresh` build may end up to date (``BuildSession/unchangedSiteCheck(_:)``): the last
/// build's record, the intro as this build read it, and the question.
struct UnchangedSiteCheck: Sendable {
    var published: PublishedFiles
    var record: UpToDateRecord
    var introSHA256: String?
    var isUnchanged: @Sendable () async -> Bool
}

/// What a build would vouch for, kept until it has ended (``BuildSession/pendingUpToDate``).
struct PendingUpToDate: Sendable {
    var record: UpToDateRecord
    var published: PublishedFiles
    /// The intro as the render step read it (nil: no intro).
    var introSHA256: String?
}
