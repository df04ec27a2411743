import BuildStore
import Foundation
import GalleryConcurrency
import GalleryCore
import Rendering

/// The grid and photo pages the last build left in an output folder, each with its fingerprint
/// (``PageFingerprint``) and the status its file had then (``PageRecord``). A page whose
/// fingerprint has not changed and whose file still has that status is the page this build would
/// write, so it is not rendered again: a rebuild of 100,000 unchanged photo pages stats them
/// instead of rendering them.
///
/// The thumbnails copied into the output are kept the same way, each with its SHA-256 for a
/// fingerprint: one still as stamped is in place, and one whose stamp moved is hashed before it
/// is trusted, so a thumbnail damaged in place at its size is copied again.
///
/// Kept in the build store with the output folder it describes and the fingerprint of everything
/// its pages were made from (the sources: when they are this build's too, a page still in place
/// is not even built to be compared). It only ever saves work: a missing or unreadable record, a
/// record of another folder, or a page edited, replaced or removed since, means the page is
/// rendered.
struct RenderedPages: Sendable {
    /// The record of the cache folder's text file of before the build store; removed, not read
    /// (it only saved renders).
    static let legacyFileName = "rendered-pages"

    let outputDirectory: URL
    /// `outputDirectory`'s path and a slash, made once (not once per page looked up).
    private let prefix: String
    /// What the recorded pages were made from.
    private(set) var sources: PageFingerprint?
    private(set) var entries: [String: PageRecord]
    /// Whether the store's record describes this output folder (else all of it is replaced).
    private var isThisFolders: Bool

    init(outputDirectory: URL, sources: PageFingerprint? = nil, entries: [String: PageRecord] = [:]) {
        self.outputDirectory = outputDirectory
        self.prefix = outputDirectory.path + "/"
        self.sources = sources
        self.entries = entries
        self.isThisFolders = sources != nil
    }

    /// The path the store keys an output folder by.
    private var folderKey: String { outputDirectory.standardizedFileURL.path }

    /// The fingerprint recorded for the page at `path`, when its file is in place as the build
    /// that recorded it left it.
    func recorded(_ path: String) -> PageFingerprint? {
        guard let entry = entries[path], let status = FileStatus(path: prefix + path), status.isRegularFile,
            FileStamp(status) == entry.stamp
        else { return nil }
        return entry.fingerprint
    }

    /// What the renderer needs of it.
    var reuse: SiteRenderer.PageReuse {
        SiteRenderer.PageReuse(sources: sources, recorded: recorded)
    }

    /// The store's record if it describes `outputDirectory`; else an empty one.
    static func load(from store: BuildStore, outputDirectory: URL) -> RenderedPages {
        var pages = RenderedPages(outputDirectory: outputDirectory)
        guard let stored = try? store.renderedPages(), stored.output == pages.folderKey else { return pages }
        pages.sources = stored.sources
        pages.entries = stored.pages
        pages.isThisFolders = true
        return pages
    }

    /// Records the pages as they are now in the output folder, writing only the rows that
    /// changed: `rendered`, written by this build, as a stat finds them (one that is not there is
    /// left out); `kept`, found in place by this build through ``recorded(_:)``, as recorded then
    /// (their files were checked against it, and a file changed since only fails the next check:
    /// at 100,000 pages a second stat of each cost a third of a second).
    func save(rendered: [UnchangedPage], kept: [UnchangedPage], sources: PageFingerprint, to store: BuildStore)
        async throws
    {
        // A stat per page, on every core: 100,000 of them are a second on one.
        let statuses = await rendered.concurrentMap(
            ways: min(ProcessInfo.processInfo.activeProcessorCount, rendered.count / 2048)
        ) { [prefix] page in
            FileStatus(path: prefix + page.path)
        }
        let replacingAll = !isThisFolders
        var changed: [(path: String, record: PageRecord)] = []
        var recordedPaths = 0
        for (page, status) in zip(rendered, statuses) {
            guard let status, status.isRegularFile else { continue }
            let record = PageRecord(fingerprint: page.fingerprint, stamp: FileStamp(status))
            if entries[page.path] != nil { recordedPaths += 1 }
            if replacingAll || entries[page.path] != record { changed.append((page.path, record)) }
        }
        for page in kept {
            // Found in place through `recorded(_:)`: as recorded, so unchanged.
            guard let entry = entries[page.path], entry.fingerprint == page.fingerprint else { continue }
            recordedPaths += 1
            if replacingAll { changed.append((page.path, entry)) }
        }
        // Every recorded page was seen (the common case, and a rebuild that changed nothing): none
        // to remove, found without a set of 100,000 paths.
        var removed: [String] = []
        if !replacingAll, recordedPaths < entries.count {
            let written = zip(rendered, statuses).compactMap { $1?.isRegularFile == true ? $0.path : nil }
            let now = Set(written).union(kept.map(\.path))
            removed = entries.keys.filter { !now.contains($0) }
        }
        guard replacingAll || sources != self.sources || !changed.isEmpty || !removed.isEmpty else { return }
        try store.saveRenderedPages(
            output: folderKey, sources: sources, changed: changed, removed: removed, replacingAll: replacingAll)
    }
}
