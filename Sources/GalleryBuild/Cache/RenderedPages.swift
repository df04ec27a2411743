import BuildStore
import Foundation
import GRDB
import GalleryConcurrency
import GalleryCore
import Rendering

/// The rendered pages' tables in the build store: the output folder the pages were written to
/// with what they were all made from (one row), and a row per page or thumbnail (``PageRecord``).
enum RenderedPageTable: StoreTable {
    static let migrations = [
        StoreMigration(2, "rendered pages") { db in
            try db.create(table: "rendered_site") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("output", .text).notNull()
                for word in 0..<4 { table.column("sources\(word)", .integer).notNull() }
            }
            // A fingerprint is four 64-bit words, kept as integers: read by column, 100,000 rows
            // at the start of every build, they cost no allocation each.
            try db.create(table: "rendered_page", options: [.withoutRowID]) { table in
                table.primaryKey("path", .text)
                for word in 0..<4 { table.column("fingerprint\(word)", .integer).notNull() }
                table.column("size", .integer).notNull()
                table.column("modified", .integer).notNull()
                table.column("inode", .integer).notNull()
            }
        }
    ]

    /// The columns of the folder's row (`id` aside, which is 1).
    enum SiteColumn: Int, TableColumn {
        case output, sources0, sources1, sources2, sources3
    }

    /// The columns of a page's row.
    enum PageColumn: Int, TableColumn {
        case path, fingerprint0, fingerprint1, fingerprint2, fingerprint3, size, modified, inode
    }

    /// What the last build left in its output folder (``BuildStore/renderedPages()``).
    struct Stored: Sendable {
        var output: String
        var sources: PageFingerprint
        var pages: [String: PageRecord]
    }
}

/// A page or thumbnail a build left in the output folder: what it was made from, and the status
/// its file had then (size, modification time to the nanosecond, inode). A file still with that
/// status is the one that build wrote.
struct PageRecord: Sendable, Equatable {
    var fingerprint: PageFingerprint
    var stamp: FileStamp
}

extension BuildStore {
    private typealias SiteColumn = RenderedPageTable.SiteColumn
    private typealias PageColumn = RenderedPageTable.PageColumn

    /// The pages and thumbnails the last build left in its output folder: that folder's path,
    /// what the pages were made from, and a record per file by its path in the folder; nil when
    /// no build recorded any.
    func renderedPages() async throws -> RenderedPageTable.Stored? {
        try await read { db in
            guard let site = try Row.fetchOne(db, sql: "SELECT \(SiteColumn.list) FROM rendered_site") else {
                return nil
            }
            var pages: [String: PageRecord] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT \(PageColumn.list) FROM rendered_page")
            while let row = try rows.next() {
                pages[row[PageColumn.path]] = PageRecord(
                    fingerprint: Self.fingerprint(
                        row, (.fingerprint0, PageColumn.fingerprint1, .fingerprint2, .fingerprint3)),
                    stamp: FileStamp(
                        size: row[PageColumn.size], modified: row[PageColumn.modified],
                        inode: UInt64(bitPattern: row[PageColumn.inode])))
            }
            let sources = Self.fingerprint(site, (.sources0, SiteColumn.sources1, .sources2, .sources3))
            return RenderedPageTable.Stored(output: site[SiteColumn.output], sources: sources, pages: pages)
        }
    }

    /// A fingerprint kept as four integer columns of `row`.
    private static func fingerprint<Column: TableColumn>(_ row: Row, _ columns: (Column, Column, Column, Column))
        -> PageFingerprint
    {
        func word(_ column: Column) -> UInt64 { UInt64(bitPattern: row[column]) }
        return PageFingerprint(words: (word(columns.0), word(columns.1), word(columns.2), word(columns.3)))
    }

    /// Records what a build left in its output folder: the rows of `changed` written, those of
    /// `removed` deleted, in one transaction with the folder and the sources; with
    /// `replacingAll`, every other row goes.
    func saveRenderedPages(
        output: String, sources: PageFingerprint, changed: [(path: String, record: PageRecord)], removed: [String],
        replacingAll: Bool
    ) async throws {
        try await write { db in
            let words = sources.words
            try db.cachedStatement(
                sql:
                    "INSERT OR REPLACE INTO rendered_site (id, \(SiteColumn.list)) VALUES (1, \(SiteColumn.placeholders))"
            ).execute(
                binding: SiteColumn.values { column in
                    switch column {
                    case .output: .text(output)
                    case .sources0: .integer(Int64(bitPattern: words.0))
                    case .sources1: .integer(Int64(bitPattern: words.1))
                    case .sources2: .integer(Int64(bitPattern: words.2))
                    case .sources3: .integer(Int64(bitPattern: words.3))
                    }
                })
            if replacingAll { try db.execute(sql: "DELETE FROM rendered_page") }
            let upsert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO rendered_page (\(PageColumn.list)) VALUES (\(PageColumn.placeholders))")
            // In the table's order, for the reason ``save(urlRecords:changedSince:removing:)`` gives;
            // their positions sorted, not a copy of them (a cold build's 205,675 pages).
            for (path, record) in changed.indices.sorted(by: { changed[$0].path < changed[$1].path }).lazy.map({
                changed[$0]
            }) {
                let words = record.fingerprint.words
                try upsert.execute(
                    binding: PageColumn.values { column in
                        switch column {
                        case .path: .text(path)
                        case .fingerprint0: .integer(Int64(bitPattern: words.0))
                        case .fingerprint1: .integer(Int64(bitPattern: words.1))
                        case .fingerprint2: .integer(Int64(bitPattern: words.2))
                        case .fingerprint3: .integer(Int64(bitPattern: words.3))
                        case .size: .integer(record.stamp.size)
                        case .modified: .integer(record.stamp.modified)
                        case .inode: .integer(Int64(bitPattern: record.stamp.inode))
                        }
                    })
            }
            let delete = try db.cachedStatement(sql: "DELETE FROM rendered_page WHERE path = ?")
            for path in removed { try delete.execute(arguments: [path]) }
        }
    }
}

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
    static func load(from store: BuildStore, outputDirectory: URL) async -> RenderedPages {
        var pages = RenderedPages(outputDirectory: outputDirectory)
        guard let stored = try? await store.renderedPages(), stored.output == pages.folderKey else { return pages }
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
        try await store.saveRenderedPages(
            output: folderKey, sources: sources, changed: changed, removed: removed, replacingAll: replacingAll)
    }
}
