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
    /// Whether this build may use or leave a record: a standalone build of the whole feed that
    /// sends the requests a rebuild would (not `--refresh`, not `--offline`). `--full` builds in
    /// full and leaves a record.
    private var checksUpToDate: Bool {
        guard case .standalone = mode, options.shard == nil, !options.refresh, !options.offline else { return false }
        if case .folder = layout.feed { return false }
        return true
    }

    /// Ends the build at once when nothing changed; otherwise takes back what the last build
    /// vouched for, before anything is changed.
    func checkUpToDate(_ context: inout BuildContext) async throws(BuildError) {
        let store = cache.buildStore
        if checksUpToDate, !options.full, let feedSHA256 = currentFeedSHA256(),
            let (published, record) = try? await store.upToDate(),
            Date().timeIntervalSince1970 < record.freshUntil, record.inputs == upToDateInputs(feedSHA256: feedSHA256),
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
            try store.forgetUpToDate()
        } catch {
            throw BuildError(
                .cache, "cannot update the cache's store (\(store.file?.path ?? "in memory"))",
                underlying: error as NSError)
        }
    }

    /// What this build vouches for, when it may (see the type's comment); nil otherwise.
    func upToDateRecord(
        report: BuildReport, feedSHA256: String?, sources: [CanonicalURL?], published: PublishedFiles
    ) async -> UpToDateRecord? {
        guard checksUpToDate, let feedSHA256, report.failures.isEmpty, report.warnings.isEmpty,
            report.counts.local == 0, report.counts.skipped == 0
        else { return nil }
        var urls = sources.compactMap { $0?.description }
        if case .remote(let url) = layout.feed, let feed = CanonicalURL(url) { urls.append(feed.description) }
        guard let freshUntil = cache.freshUntil(of: urls) else { return nil }
        let directory = layout.outputDirectory.path
        // A missing file is a negative size: no optional per file (205,000 of them at 100,000 photos).
        let stamps = await published.files.concurrentMap { file in
            FileStamp(path: directory + "/" + file) ?? FileStamp(size: -1, modified: 0, inode: 0)
        }
        guard !stamps.contains(where: { $0.size < 0 }) else { return nil }
        return UpToDateRecord(
            inputs: upToDateInputs(feedSHA256: feedSHA256), freshUntil: freshUntil, photos: report.counts.photos,
            urls: report.counts.urls, pages: report.counts.pagesRendered + report.counts.pagesUnchanged,
            files: stamps)
    }

    /// The feed's content hash as a build would read it now, without parsing it: a feed file's
    /// bytes, or a remote feed's cached copy (fresh, or the check fails on `freshUntil`).
    private func currentFeedSHA256() -> String? {
        switch layout.feed {
        case .file(let file): (try? PlainFile.read(file)).map { sha256Hex(of: $0) }
        case .remote(let url):
            CanonicalURL(url).flatMap { try? cache.buildStore.urlRecord(for: $0.description)?.sha256 }
        case .folder: nil
        }
    }

    /// Whether the output is as the build that vouched left it: the same folder, the manifest and
    /// every file it listed with the size, modification time and inode they had then.
    private func isAsLeft(_ published: PublishedFiles, _ record: UpToDateRecord) async -> Bool {
        let output = layout.outputDirectory
        guard published.output == output.standardizedFileURL.path,
            FileStamp(path: output.appendingPathComponent(Manifest.fileName).path) == published.manifest
        else { return false }
        let directory = output.path
        let (files, stamps) = (published.files, record.files)
        let unchanged = await Array(files.indices).concurrentMap { index in
            FileStamp(path: directory + "/" + files[index]) == stamps[index]
        }
        return !unchanged.contains(false)
    }

    /// A hash of everything the build reads besides the photos: gallerygen itself, the config
    /// and the options, the folders, the theme's files (names, sizes and times), the intro and
    /// the feed.
    private func upToDateInputs(feedSHA256: String) -> String {
        var inputs = ""
        func add(_ text: String) { inputs += text + "\n" }
        add("gallerygen up-to-date 1 \(GalleryVersion.current)")
        if let executable = Bundle.main.executableURL, let status = FileStatus(executable) {
            add("\(status.size) \(status.modifiedNanoseconds) \(status.inode)")
        }
        add(String(reflecting: config))
        var options = options
        options.full = false  // how this build was asked to check, not what it makes
        add(String(reflecting: options))
        for folder in [layout.siteDirectory, layout.outputDirectory, layout.cacheDirectory] { add(folder.path) }
        // The cache as the build left it: thumbnails or originals removed from it are made or
        // fetched again by a build, as they would be without this check.
        for folder in cache.fileFolders {
            let status = FileStatus(folder)
            add("cache \(folder.lastPathComponent) \(status?.modifiedNanoseconds ?? 0) \(status?.inode ?? 0)")
        }
        for folder in [layout.themeDirectory, SiteRenderer.builtInTheme].compactMap({ $0 }) {
            add("theme \(folder.path)")
            let files = (FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []).sorted()
            for file in files {
                guard let status = FileStatus(path: folder.path + "/" + file) else { continue }
                add("\(file) \(status.size) \(status.modifiedNanoseconds) \(status.inode)")
            }
        }
        if let intro = layout.introFile {
            add("intro " + ((try? PlainFile.read(intro)).map { sha256Hex(of: $0) } ?? "none"))
        }
        add("feed \(feedSHA256)")
        return sha256Hex(of: inputs)
    }
}
