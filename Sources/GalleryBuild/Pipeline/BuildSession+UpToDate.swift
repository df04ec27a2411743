import BuildStore
import Foundation
import GalleryConcurrency
import GalleryCore
import Loading
import Rendering
import Reporting
import Synchronization

/// The up-to-date check: a build whose inputs are those of the build that published the output,
/// while every URL that build used is still fresh in the cache and every file it published is as
/// it left it (and the cache's folders hold the files it left), would write the same files again;
/// it has nothing to do, and says so.
///
/// The build that published vouches for the folder (``UpToDateRecord``) only when it was clean:
/// no failure, no warning. The site's own files it read (a folder feed's folders and files, a
/// feed file's local photos) are in what it vouches for by their stamps (``SourceStamp``, taken
/// before each was read): a rebuild stats them, and reads nothing while each keeps its stamp.
/// Every other build takes the record back before it changes anything
/// (``BuildStore/forgetUpToDate()``), so a build killed on the way leaves nothing to trust.
extension BuildSession {
    /// Whether this build may leave a record: a standalone build of the whole feed that asks the
    /// servers (not `--offline`).
    private var leavesUpToDate: Bool {
        guard case .standalone = mode, options.shard == nil, !options.offline else { return false }
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
            record.inputs
                == upToDateInputs(
                    introSHA256: currentIntroSHA256(), feedSHA256: feedSHA256,
                    localSHA256: LocalInputs.hash(record.local)),
            await LocalInputs.areUnchanged(record.local),
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
        report: BuildReport, items: [BuildItem], published: PublishedFiles, introSHA256: String?,
        localInputs: LocalInputs?
    ) async -> PendingUpToDate? {
        guard leavesUpToDate, Self.isClean(report), let localInputs else { return nil }
        guard let freshUntil = freshUntil(of: items), let stamps = await stamps(of: published)
        else { return nil }
        let record = UpToDateRecord(
            inputs: "", freshUntil: freshUntil, photos: report.counts.photos, urls: report.counts.urls,
            pages: report.counts.pagesRendered + report.counts.pagesUnchanged, files: stamps,
            local: localInputs.inputs)
        return PendingUpToDate(
            record: record, published: published, introSHA256: introSHA256, localSHA256: localInputs.sha256)
    }

    /// The site's own files this build read (``LocalInputs``): the folder feed's walk and the
    /// local photos the loader read or looked up. Nil when the build may vouch for none of them:
    /// one was seen with two stamps (it changed while the build ran), or one was written too
    /// shortly before the build for its stamp to be trusted (``SourceStamp/isSettled(at:)``).
    func localInputs(feed: FeedDocument, startedAt: Date) -> LocalInputs? {
        guard let loaded = cache.digests.inputs else { return nil }
        // The walk's inputs in its order (each once, each folder before its entries), then the
        // other files the loader read (a feed file's photos) in path order: the same inputs give
        // the same list, with no sort of 100,000 paths.
        var stamps: [String: SourceStamp] = [:]
        stamps.reserveCapacity(feed.inputs.count)
        for input in feed.inputs {
            if let earlier = stamps.updateValue(input.stamp, forKey: input.path), earlier != input.stamp { return nil }
        }
        // The loader's are each path once (``LocalDigests/inputs``).
        var others: [SourceInput] = []
        for input in loaded {
            guard let walked = stamps[input.path] else {
                others.append(input)
                continue
            }
            guard walked == input.stamp else { return nil }
        }
        let inputs = feed.inputs + others.sorted { $0.path < $1.path }
        guard inputs.allSatisfy({ $0.stamp.isSettled(at: startedAt) }) else { return nil }
        return LocalInputs(inputs: inputs, sha256: LocalInputs.hash(inputs))
    }

    /// Until when every URL the build used stays fresh: the photos', their Live Photos' motions'
    /// and the feed's (a local file's is in its stamp, ``LocalInputs``). Nil when one is not in
    /// the cache; a build that used no URL is fresh as long as its local inputs are as it read
    /// them.
    private func freshUntil(of items: [BuildItem]) -> Double? {
        var urls = items.compactMap { $0.source.flatMap { $0.isFile ? nil : $0.description } }
        urls += items.compactMap { item in
            item.photo.motion.flatMap(CanonicalURL.init).flatMap { $0.isFile ? nil : $0.description }
        }
        if case .remote(let url) = layout.feed, let feed = CanonicalURL(url) { urls.append(feed.description) }
        return cache.files.freshUntil(of: urls).map { min($0, Self.noExpiry) }
    }

    /// A time in the far future (year 33,658), that the store keeps as a number.
    static let noExpiry = 1e12

    /// For a `--refresh` build with the last build's record: the question whether the site that
    /// build published is this build's, asked once every photo's URL has answered that its copy
    /// is unchanged. It is when the inputs are that build's (the feed as read again, the
    /// settings, the intro, the cache's folders) and the output is as it left it. Nil when the
    /// build cannot end that way: no record, something reported already, or a Live Photo (its
    /// motion would be asked about only later).
    func unchangedSiteCheck(_ context: BuildContext) -> UnchangedSiteCheck? {
        guard let (published, record) = context.refreshBaseline, let feedSHA256 = context.feedSHA256,
            Self.isClean(context.report), !context.items.contains(where: { $0.photo.motion != nil }),
            record.local.isEmpty
        else { return nil }
        // Read once: the intro compared is the one the record left will vouch for.
        let introSHA256 = currentIntroSHA256()
        let local = LocalInputs.hash([])
        return UnchangedSiteCheck(
            published: published, record: record, introSHA256: introSHA256, localSHA256: local
        ) {
            guard record.inputs == upToDateInputs(introSHA256: introSHA256, feedSHA256: feedSHA256, localSHA256: local)
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
        context.upToDate = PendingUpToDate(
            record: vouched, published: check.published, introSHA256: check.introSHA256,
            localSHA256: check.localSHA256)
    }

    /// Writes what the build vouches for, once it has ended (its last warnings known, the cache
    /// written and evicted): only for a build that ended clean.
    func saveUpToDate(_ pending: PendingUpToDate, report: BuildReport, feedSHA256: String?) async {
        guard let feedSHA256, Self.isClean(report), (report.remoteCache?.failures ?? 0) == 0 else { return }
        var record = pending.record
        record.inputs = upToDateInputs(
            introSHA256: pending.introSHA256, feedSHA256: feedSHA256, localSHA256: pending.localSHA256)
        try? await store.saveUpToDate(record, for: pending.published)
    }

    /// No failure, no warning, no skipped entry.
    private static func isClean(_ report: BuildReport) -> Bool {
        report.failures.isEmpty && report.warnings.isEmpty && report.counts.skipped == 0
    }

    /// The feed's content hash as a build would read it now, without parsing it: a feed file's
    /// bytes, or a remote feed's cached copy (fresh, or the check fails on `freshUntil`). A
    /// folder's is in the stamps of its folders and files (``LocalInputs``): here, its path.
    private func currentFeedSHA256() async -> String? {
        switch layout.feed {
        case .file(let file): (try? PlainFile.read(file)).map { sha256Hex(of: $0) }
        case .remote(let url):
            if let source = CanonicalURL(url) {
                await cache.files.storedRecord(for: source.description)?.sha256
            } else {
                nil
            }
        case .folder(let folder): Self.folderFeedKey(folder)
        }
    }

    /// What stands for a folder feed in the inputs: what it holds is in their local part.
    static func folderFeedKey(_ folder: URL) -> String { "folder \(folder.standardizedFileURL.path)" }

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
    private func upToDateInputs(introSHA256: String?, feedSHA256: String, localSHA256: String) -> String {
        var inputs = upToDateSettings
        inputs += "intro \(introSHA256 ?? "none")\nfeed \(feedSHA256)\nlocal \(localSHA256)\n"
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
    var localSHA256: String
    var isUnchanged: @Sendable () async -> Bool
}

/// What a build would vouch for, kept until it has ended (``BuildSession/pendingUpToDate``).
struct PendingUpToDate: Sendable {
    var record: UpToDateRecord
    var published: PublishedFiles
    /// The intro as the render step read it (nil: no intro).
    var introSHA256: String?
    /// The site's own files the build read, hashed with their stamps (``LocalInputs``).
    var localSHA256: String
}

/// The site's own files a build read, with their stamps before the reads: a hash of them is part
/// of what the build vouches for, and the next build stamps the same paths again to compare
/// (at 100,000 photos, a stat each instead of a read each, and none past the first that moved).
struct LocalInputs: Sendable {
    /// The folder walk's in its order (each folder before its entries), then the other files read
    /// in path order: the same inputs give the same list.
    var inputs: [SourceInput]
    var sha256: String

    /// The hash of each path with its stamp, in order: bytes, not text (100,000 paths a check).
    static func hash(_ inputs: [SourceInput]) -> String {
        sha256Hex(of: LocalInputBlob.pack(inputs))
    }

    /// Whether every file still has its stamp. Stamped a part at a time on every core; no part
    /// is begun once one has found a file that moved (the folder of a caption added comes first,
    /// so a change costs next to nothing).
    static func areUnchanged(_ inputs: [SourceInput]) async -> Bool {
        let moved = Atomic<Bool>(false)
        let size = 2048
        _ = await Array(stride(from: 0, to: inputs.count, by: size)).concurrentMap { start in
            guard !moved.load(ordering: .relaxed) else { return }
            for input in inputs[start..<min(start + size, inputs.count)]
            where SourceStamp(path: input.path) != input.stamp {
                moved.store(true, ordering: .relaxed)
                return
            }
        }
        return !moved.load(ordering: .relaxed)
    }
}
