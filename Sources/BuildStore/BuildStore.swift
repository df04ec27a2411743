package import Foundation
package import GRDB
package import GalleryCore
import Synchronization

/// What a build remembers between runs, in one SQLite database (`CACHE/v1/store.sqlite`): the
/// URL records the loader revalidates with (``CacheRecord``), the pages and thumbnails the last
/// build left in its output folder (``PageRecord``), and the schema's place for what the next
/// stages will keep. Blobs and thumbnails stay files named by their hash beside it.
///
/// A build reads the records once, when the cache is opened, and writes only the rows that
/// changed, in one transaction, when it ends (a build that changed nothing writes nothing). The
/// database runs in WAL mode while a build uses it and is checkpointed into its one file when the
/// build saves, so the cache folder CI keeps holds one consistent file.
///
/// The schema is versioned by GRDB's `DatabaseMigrator`. A store that cannot be used (damaged,
/// cut short, not a database, made by a newer gallerygen) is never trusted in part: ``open(at:)``
/// says why in ``Opening/problem`` and gives a store to build with, a new file in the damaged
/// one's place. A store another program holds locked is read as it is (WAL lets readers in); a
/// write waits two seconds for the lock, then fails with the reason, which the build reports (a
/// store that needs its schema upgraded while locked is replaced, for that build, by one in
/// memory).
package final class BuildStore: Sendable {
    /// The store's file in the cache's `v1` folder.
    package static let fileName = "store.sqlite"

    let database: DatabaseQueue
    /// Whether the log holds writes not yet folded into the file (a checkpoint of nothing still
    /// touches the file, which a build that changed nothing must not).
    private let hasUncheckpointedWrites = Atomic<Bool>(false)
    /// Where the store lives; nil for one in memory.
    package let file: URL?

    /// A store, and why the one on disk could not be used, when it could not.
    package struct Opening: Sendable {
        package var store: BuildStore
        /// A sentence for the report: what was wrong and what was done about it.
        package var problem: String?
    }

    private init(database: DatabaseQueue, file: URL?) {
        self.database = database
        self.file = file
    }

    /// Opens the store at `file`, creating or upgrading it; a store that cannot be used is set
    /// aside and made anew (or, while another program holds it locked, replaced for this build
    /// by one in memory).
    package static func open(at file: URL) -> Opening {
        // A link in the store's place (to a file out of the cache, which a pull request could
        // set up) is never written through: it is taken away and a store of the cache's own made.
        func links() -> [String] {
            ["", "-wal", "-shm", "-journal"].map { file.path + $0 }.filter {
                (try? FileManager.default.attributesOfItem(atPath: $0)[.type] as? FileAttributeType)
                    == .typeSymbolicLink
            }
        }
        let found = links()
        if !found.isEmpty {
            for link in found { try? FileManager.default.removeItem(atPath: link) }
            let names = found.map { ($0 as NSString).lastPathComponent }.joined(separator: ", ")
            guard links().isEmpty else {
                return Opening(
                    store: inMemory(),
                    problem: "\(file.path): \(names) cannot be taken away (a symbolic link, never written through); "
                        + "this build's records are not kept")
            }
            var opening = open(at: file)
            let replaced =
                "\(file.path): \(names) \(found.count == 1 ? "was a symbolic link" : "were symbolic links"), never "
                + "written through; the cache now holds a store of its own (every photo is revalidated)"
            opening.problem = [replaced, opening.problem].compactMap { $0 }.joined(separator: "; ")
            return opening
        }
        do {
            return Opening(store: try BuildStore(opening: file), problem: nil)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            return Opening(
                store: inMemory(),
                problem: "\(file.path): locked by another program (\(error.message ?? "busy")); this build's "
                    + "records are not kept")
        } catch {
            let reason = describe(error)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            do {
                return Opening(
                    store: try BuildStore(opening: file),
                    problem: "\(file.path): \(reason); it was made anew (every photo is revalidated, nothing else "
                        + "is lost)")
            } catch {
                return Opening(
                    store: inMemory(),
                    problem: "\(file.path): \(reason), and a new one cannot be made (\(describe(error))); this "
                        + "build's records are not kept")
            }
        }
    }

    /// A store in memory: for a build that cannot keep one, and for tests.
    package static func inMemory() -> BuildStore {
        do {
            let database = try DatabaseQueue()
            try migrator.migrate(database)
            return BuildStore(database: database, file: nil)
        } catch {
            // Nothing of the user's is read here: only a broken SQLite library fails this.
            preconditionFailure("SQLite cannot make a database in memory: \(error)")
        }
    }

    private convenience init(opening file: URL) throws {
        var configuration = Configuration()
        // A build waits a moment for a program that reads the store (sqlite3 in a shell), no more.
        configuration.busyMode = .timeout(2)
        // WAL is set once, when the store is made (it is kept in the file): GRDB's `.wal` setting
        // writes to the file on every open, which a build that changes nothing must not.
        configuration.label = "gallerygen.store"
        // In WAL mode, NORMAL syncs at checkpoints, not at every commit: a thumbnail set is
        // recorded as it is made, and a process killed keeps every commit (a power cut may lose
        // the last ones, never the file's consistency).
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let database = try DatabaseQueue(path: file.path, configuration: configuration)
        let current = try database.read { db in
            // Reading the schema finds a file that is not a database, or one cut short.
            _ = try db.tableExists("grdb_migrations")
            if try Self.migrator.hasBeenSuperseded(db) { throw NewerStore() }
            return try Self.migrator.hasCompletedMigrations(db)
        }
        // A store already at this version is not written to at all.
        if !current {
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try Self.migrator.migrate(database)
        }
        try database.read { db in
            let result = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? ""
            if result != "ok" { throw DamagedStore(detail: result) }
        }
        self.init(database: database, file: file)
        if !current {
            markWritten()
            try checkpoint()
        }
    }

    private struct NewerStore: Error {}

    private struct DamagedStore: Error {
        var detail: String
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case is NewerStore: "made by a newer gallerygen"
        case let damaged as DamagedStore: "damaged (\(damaged.detail.prefix(200)))"
        case let error as DatabaseError:
            switch error.resultCode {
            case .SQLITE_NOTADB: "not a gallerygen store (not an SQLite database)"
            case .SQLITE_CORRUPT: "damaged (\(error.message ?? "corrupt"))"
            default: "unreadable (\(error.message ?? "\(error.resultCode)"))"
            }
        default: "unreadable (\(error))"
        }
    }

    /// The schema, one migration per version; a store whose migrations this binary does not know
    /// was written by a newer gallerygen.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: URL records") { db in
            try db.create(table: "url_record", options: [.withoutRowID]) { table in
                table.primaryKey("url", .text)
                table.column("final_url", .text).notNull()
                table.column("redirects", .text).notNull()
                table.column("status", .integer).notNull()
                table.column("etag", .text)
                table.column("last_modified", .text)
                table.column("date", .text)
                table.column("age", .text)
                table.column("cache_control", .text)
                table.column("expires", .text)
                table.column("vary", .text)
                table.column("content_type", .text)
                table.column("sha256", .text).notNull()
                table.column("size", .integer).notNull()
                table.column("blob_modified", .double).notNull()
                table.column("response_time", .double).notNull()
                table.column("fetched_at", .double).notNull()
                table.column("validated_at", .double).notNull()
                table.column("last_used", .double).notNull()
            }
            // Dropped by v6: what the photos say lives with their thumbnail sets.
            try db.create(table: "photo_metadata", options: [.withoutRowID]) { table in
                table.primaryKey("sha256", .text)
                table.column("metadata", .blob).notNull()
            }
        }
        migrator.registerMigration("v2: rendered pages") { db in
            // The output folder the pages were written to, and what they were all made from.
            try db.create(table: "rendered_site") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("output", .text).notNull()
                for word in 0..<4 { table.column("sources\(word)", .integer).notNull() }
            }
            // A fingerprint is four 64-bit words, kept as integers: read by position, 100,000
            // rows at the start of every build, they cost no allocation each.
            try db.create(table: "rendered_page", options: [.withoutRowID]) { table in
                table.primaryKey("path", .text)
                for word in 0..<4 { table.column("fingerprint\(word)", .integer).notNull() }
                table.column("size", .integer).notNull()
                table.column("modified", .integer).notNull()
                table.column("inode", .integer).notNull()
            }
        }
        migrator.registerMigration("v3: rendition sets") { db in
            // A thumbnail set by its key (the original's hash and the recipe): the image's size,
            // placeholder and camera details, and when a build last used it (for eviction).
            try db.create(table: "rendition_set", options: [.withoutRowID]) { table in
                table.primaryKey("key", .text)
                table.column("width", .integer).notNull()
                table.column("height", .integer).notNull()
                table.column("placeholder_color", .text).notNull()
                table.column("placeholder_uri", .text).notNull()
                table.column("transparent", .boolean).notNull()
                for column in RenditionSetRecord.cameraColumns { table.column(column, .text) }
                table.column("last_used", .double).notNull()
            }
            // Its files, in the set's order, each with its hash and the stamp (modification time
            // to the nanosecond, inode) the file had when the hash was taken.
            try db.create(table: "rendition", options: [.withoutRowID]) { table in
                table.column("set_key", .text).notNull().references("rendition_set", onDelete: .cascade)
                table.column("position", .integer).notNull()
                table.column("format", .text).notNull()
                table.column("width", .integer).notNull()
                table.column("height", .integer).notNull()
                table.column("path", .text).notNull()
                table.column("bytes", .integer).notNull()
                table.column("sha256", .text)
                table.column("stamp_modified", .integer)
                table.column("stamp_inode", .integer)
                table.primaryKey(["set_key", "position"])
            }
        }
        migrator.registerMigration("v4: published file list") { db in
            // The files the last build's manifest lists (one text, a line each: read and written
            // whole, it costs a few milliseconds where 100,000 rows cost half a second), with the
            // stamp (size, modification time to the nanosecond, inode) the manifest had then:
            // while it still has it, the list is the manifest's, and the next build need not
            // read the manifest.
            try db.create(table: "published_site") { table in
                table.primaryKey("id", .integer).check { $0 == 1 }
                table.column("output", .text).notNull()
                table.column("manifest_size", .integer).notNull()
                table.column("manifest_modified", .integer).notNull()
                table.column("manifest_inode", .integer).notNull()
                table.column("files", .text).notNull()
            }
        }
        migrator.registerMigration("v5: up-to-date check") { db in
            // What the build that published the files read (a hash), until when every URL it
            // used stays fresh, its counts, and each file's size and stamp as it left it, in the
            // list's order: while all of it holds, the next build has nothing to do. NULL
            // `inputs`: no build vouches for the folder.
            try db.alter(table: "published_site") { table in
                table.add(column: "inputs", .text)
                table.add(column: "fresh_until", .double)
                table.add(column: "photos", .integer)
                table.add(column: "urls", .integer)
                table.add(column: "pages", .integer)
                table.add(column: "stamps", .blob)
            }
        }
        migrator.registerMigration("v6: what the photos say") { db in
            // What an original says about itself (XMP, IPTC, EXIF) lives with its thumbnail set:
            // read with the same header, kept and evicted with it, shared with it. NULL
            // `metadata_read`: a set made before it was read.
            try db.alter(table: "rendition_set") { table in
                table.add(column: "metadata_read", .boolean)
                // As v6 made them: a migration never changes (v7 adds `location`).
                for column in [
                    "title", "description", "alt", "keywords", "taken_local", "taken_offset", "creator", "rights",
                    "licence",
                ] {
                    table.add(column: column, .text)
                }
                table.add(column: "rating", .integer)
            }
            // The place v1 kept for it, never filled.
            try db.drop(table: "photo_metadata")
        }
        migrator.registerMigration("v7: where the photos were taken") { db in
            // `59.91387,10.75225`. A set read before (`metadata_read` 1) reads its original's
            // header once more for the place, where the cache still has it (no pixel decoded);
            // the rest keep what was read (RenditionSetRecord.metadataVersion).
            try db.alter(table: "rendition_set") { table in table.add(column: "location", .text) }
        }
        migrator.registerMigration("v8: feed pages' next links") { db in
            // A feed page's `Link` header (its rel="next"), kept so that a page the server
            // confirms unchanged (304) still says where the next one is.
            try db.alter(table: "url_record") { table in table.add(column: "link", .text) }
        }
        migrator.registerMigration("v9: clips") { db in
            // A clip's set: how long it runs, whether its videos have sound, and the recipe they
            // were made with (VideoRecipe.fingerprint); NULL for a photo's.
            try db.alter(table: "rendition_set") { table in
                table.add(column: "video_duration", .double)
                table.add(column: "video_audio", .boolean)
                table.add(column: "video_recipe", .text)
            }
        }
        return migrator
    }()

    // MARK: URL records

    /// The record of one URL, if the store holds one.
    package func urlRecord(for url: String) throws -> CacheRecord? {
        try database.read { db in
            try CacheRecord.fetchOne(
                db, sql: "SELECT \(CacheRecord.columns.joined(separator: ", ")) FROM url_record WHERE url = ?",
                arguments: [url])
        }
    }

    /// Every URL record.
    package func urlRecords() throws -> [CacheRecord] {
        try database.read { db in
            try CacheRecord.fetchAll(db, sql: "SELECT \(CacheRecord.columns.joined(separator: ", ")) FROM url_record")
        }
    }

    /// Writes the records that changed and removes those of `removed`, in one transaction (the
    /// log is folded into the file by ``checkpoint()``, once the build's writes are done).
    /// `replacingAll`: `changed` is every record, and any other row goes.
    package func save(urlRecords changed: [CacheRecord], removing removed: [String], replacingAll: Bool = false)
        throws
    {
        guard !changed.isEmpty || !removed.isEmpty || replacingAll else { return }
        try save(removing: removed, replacingAll: replacingAll) { _, upsert in
            for record in changed { try upsert(record) }
        }
    }

    /// ``save(urlRecords:removing:replacingAll:)`` for the records of `records` that differ from
    /// `before` (all of them, replacing every row, when it is nil), picked as they are written:
    /// 100,000 new records are not copied into a list first.
    ///
    /// Written in the order of their keys, the table's own: each page of the table is changed
    /// once. In a dictionary's order every row lands on another page, and a transaction larger
    /// than SQLite's page cache spills the same pages to the log again and again (a --refresh of
    /// 90,878 records wrote 462 MB of log for a 35 MB table, and took 1.6 s).
    ///
    /// A record that only took a 304's answer (``CacheRecord/revalidationColumns``) updates those
    /// columns alone: a --refresh of 90,878 records binds half the values it would otherwise.
    package func save(
        urlRecords records: [String: CacheRecord], changedSince before: [String: CacheRecord]?,
        removing removed: [String]
    ) throws {
        let urls = records.keys.sorted()
        try save(removing: removed, replacingAll: before == nil) { db, upsert in
            let revalidated = try db.cachedStatement(
                sql: "UPDATE url_record SET "
                    + CacheRecord.revalidationColumns.map { "\($0) = ?" }.joined(separator: ", ") + " WHERE url = ?")
            for url in urls {
                guard let record = records[url] else { continue }
                let old = before?[url]
                if let old, old.withRevalidation(of: record) == record {
                    guard old != record else { continue }
                    try revalidated.execute(binding: record.revalidationArguments)
                } else {
                    try upsert(record)
                }
            }
        }
    }

    private func save(
        removing removed: [String], replacingAll: Bool,
        _ write: @Sendable (Database, (CacheRecord) throws -> Void) throws -> Void
    ) throws {
        try database.write { db in
            if replacingAll { try CacheRecord.deleteAll(db) }
            // One prepared statement, arguments by position: a --refresh of 100,000 URLs rewrites
            // every record.
            let columns = CacheRecord.columns
            let upsert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO url_record (\(columns.joined(separator: ", "))) VALUES ("
                    + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")")
            try write(db) { record in try upsert.execute(binding: record.columnValues) }
            for url in removed { _ = try CacheRecord.deleteOne(db, key: url) }
        }
        markWritten()
    }

    // MARK: Rendered pages

    /// The pages and thumbnails the last build left in its output folder: that folder's path,
    /// what the pages were made from, and a record per file by its path in the folder; nil when
    /// no build recorded any.
    package func renderedPages() throws -> RenderedPages? {
        try database.read { db in
            guard
                let site = try Row.fetchOne(
                    db, sql: "SELECT output, sources0, sources1, sources2, sources3 FROM rendered_site")
            else { return nil }
            var pages: [String: PageRecord] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT path, fingerprint0, fingerprint1, fingerprint2, fingerprint3, size, modified, inode "
                    + "FROM rendered_page")
            while let row = try rows.next() {
                pages[row[0]] = PageRecord(
                    fingerprint: Self.fingerprint(row, from: 1),
                    stamp: FileStamp(size: row[5], modified: row[6], inode: UInt64(bitPattern: row[7])))
            }
            return RenderedPages(output: site[0], sources: Self.fingerprint(site, from: 1), pages: pages)
        }
    }

    /// Records what a build left in its output folder: the rows of `changed` written, those of
    /// `removed` deleted, in one transaction with the folder and the sources; with
    /// `replacingAll`, every other row goes.
    package func saveRenderedPages(
        output: String, sources: PageFingerprint, changed: [(path: String, record: PageRecord)], removed: [String],
        replacingAll: Bool
    ) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO rendered_site (id, output, sources0, sources1, sources2, sources3) "
                    + "VALUES (1, ?, ?, ?, ?, ?)",
                arguments: StatementArguments([output] + Self.arguments(sources)))
            if replacingAll { try db.execute(sql: "DELETE FROM rendered_page") }
            let upsert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO rendered_page (path, fingerprint0, fingerprint1, fingerprint2, "
                    + "fingerprint3, size, modified, inode) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
            // In the table's order, for the reason ``save(urlRecords:changedSince:removing:)`` gives;
            // their positions sorted, not a copy of them (a cold build's 205,675 pages).
            for (path, record) in changed.indices.sorted(by: { changed[$0].path < changed[$1].path }).lazy.map({
                changed[$0]
            }) {
                let words = record.fingerprint.words
                try upsert.execute(binding: [
                    .text(path), .integer(Int64(bitPattern: words.0)), .integer(Int64(bitPattern: words.1)),
                    .integer(Int64(bitPattern: words.2)), .integer(Int64(bitPattern: words.3)),
                    .integer(record.stamp.size), .integer(record.stamp.modified),
                    .integer(Int64(bitPattern: record.stamp.inode)),
                ])
            }
            let delete = try db.cachedStatement(sql: "DELETE FROM rendered_page WHERE path = ?")
            for path in removed { try delete.execute(arguments: [path]) }
        }
        markWritten()
    }

    /// What the last build left in its output folder (``renderedPages()``).
    package struct RenderedPages: Sendable {
        package var output: String
        package var sources: PageFingerprint
        package var pages: [String: PageRecord]
    }

    private static func fingerprint(_ row: Row, from column: Int) -> PageFingerprint {
        func word(_ index: Int) -> UInt64 { UInt64(bitPattern: row[column + index]) }
        return PageFingerprint(words: (word(0), word(1), word(2), word(3)))
    }

    private static func arguments(_ fingerprint: PageFingerprint) -> [(any DatabaseValueConvertible)?] {
        let words = fingerprint.words
        return [words.0, words.1, words.2, words.3].map { Int64(bitPattern: $0) }
    }

    /// Notes that the log holds writes for the next ``checkpoint()``.
    func markWritten() {
        hasUncheckpointedWrites.store(true, ordering: .relaxed)
    }

    /// Folds the write-ahead log into the database file, so the folder holds one consistent file.
    package func checkpoint() throws {
        guard file != nil, hasUncheckpointedWrites.load(ordering: .relaxed) else { return }
        try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        hasUncheckpointedWrites.store(false, ordering: .relaxed)
    }

    /// Closes the database (after a last checkpoint); nothing is read or written after this.
    package func close() {
        try? checkpoint()
        try? database.close()
    }
}

extension CacheRecord: FetchableRecord, TableRecord {
    package static var databaseTableName: String { "url_record" }

    /// The columns, in the order ``init(row:)`` reads and ``columnValues`` gives them.
    static let columns = [
        "url", "final_url", "redirects", "status", "etag", "last_modified", "date", "age", "cache_control", "expires",
        "vary", "content_type", "sha256", "size", "blob_modified", "response_time", "fetched_at", "validated_at",
        "last_used", "link",
    ]

    /// Read by position, not by name or through `Decodable`: every record is read at the start of
    /// each build.
    package init(row: Row) throws {
        let redirects: String = row[2]
        self.init(
            url: row[0], finalURL: row[1],
            redirects: redirects.isEmpty ? [] : redirects.split(separator: "\n").map(String.init),
            status: row[3], etag: row[4], lastModified: row[5], date: row[6], age: row[7], cacheControl: row[8],
            expires: row[9], vary: row[10], contentType: row[11], sha256: row[12], size: row[13],
            blobModified: row[14], responseTime: row[15], fetchedAt: row[16], validatedAt: row[17], lastUsed: row[18],
            link: row[19])
    }

    /// The values of ``columns``, in their order. A URL holds no raw newline (it would not have
    /// parsed), so one separates the redirects.
    var columnValues: [ColumnValue] {
        [
            .text(url), .text(finalURL), .text(redirects.joined(separator: "\n")), .integer(Int64(status)),
            .text(etag), .text(lastModified), .text(date), .text(age), .text(cacheControl), .text(expires),
            .text(vary), .text(contentType), .text(sha256), .integer(Int64(size)), .real(blobModified),
            .real(responseTime), .real(fetchedAt), .real(validatedAt), .real(lastUsed), .text(link),
        ]
    }

    /// The columns a 304 changes (RFC 9111 4.3.4: the stored headers it names, and the times),
    /// in the order ``revalidationArguments`` gives them and ``withRevalidation(of:)`` copies them.
    static let revalidationColumns = [
        "etag", "last_modified", "date", "age", "cache_control", "expires", "response_time", "validated_at",
        "last_used",
    ]

    /// The values of ``revalidationColumns``, then the URL their row is found by.
    var revalidationArguments: [ColumnValue] {
        [
            .text(etag), .text(lastModified), .text(date), .text(age), .text(cacheControl), .text(expires),
            .real(responseTime), .real(validatedAt), .real(lastUsed), .text(url),
        ]
    }

    /// This record with the values of ``revalidationColumns`` taken from `other`: equal to
    /// `other` when that is all they differ in (a field added to the record later is written
    /// whole until it is listed there).
    func withRevalidation(of other: CacheRecord) -> CacheRecord {
        var record = self
        (record.etag, record.lastModified, record.date, record.age) = (
            other.etag, other.lastModified, other.date, other.age
        )
        (record.cacheControl, record.expires) = (other.cacheControl, other.expires)
        (record.responseTime, record.validatedAt, record.lastUsed) = (
            other.responseTime, other.validatedAt, other.lastUsed
        )
        return record
    }
}
