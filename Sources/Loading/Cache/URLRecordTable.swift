package import BuildStore
import Foundation
import GRDB

/// The loader's table in the build store: a row per URL (``CacheRecord``), read once a build and
/// written where they changed.
package enum URLRecordTable: StoreTable {
    package static let migrations = [
        StoreMigration(1, "URL records") { db in
            // As v1 made it (a migration never changes; v8 adds `link`).
            try db.create(table: "url_record", options: [.withoutRowID]) { table in
                table.primaryKey("url", .text)
                table.column("final_url", .text).notNull()
                table.column("redirects", .text).notNull()
                table.column("status", .integer).notNull()
                for name in [
                    "etag", "last_modified", "date", "age", "cache_control", "expires", "vary", "content_type",
                ] {
                    table.column(name, .text)
                }
                table.column("sha256", .text).notNull()
                table.column("size", .integer).notNull()
                for name in ["blob_modified", "response_time", "fetched_at", "validated_at", "last_used"] {
                    table.column(name, .double).notNull()
                }
            }
        },
        StoreMigration(8, "feed pages' next links") { db in
            // A feed page's `Link` header (its rel="next"), kept so that a page the server
            // confirms unchanged (304) still says where the next one is.
            try db.alter(table: "url_record") { table in table.add(column: "link", .text) }
        },
    ]

    /// The columns of a row, as ``CacheRecord/init(row:)`` reads them and
    /// ``CacheRecord/columnValues`` gives them.
    enum Column: Int, TableColumn {
        case url, finalURL, redirects, status, etag, lastModified, date, age, cacheControl, expires, vary, contentType
        case sha256, size, blobModified, responseTime, fetchedAt, validatedAt, lastUsed, link
    }

    /// The columns a 304 changes (RFC 9111 4.3.4: the stored headers it names, and the times),
    /// as ``CacheRecord/revalidationArguments`` gives them and ``CacheRecord/withRevalidation(of:)``
    /// copies them.
    static let revalidationColumns: [Column] = [
        .etag, .lastModified, .date, .age, .cacheControl, .expires, .responseTime, .validatedAt, .lastUsed,
    ]

    static let selectAll = "SELECT \(Column.list) FROM url_record"

    /// Writes `write`'s records and removes those of `removed`, in one transaction; with
    /// `replacingAll`, every other row goes.
    static func save(
        in db: Database, removing removed: [String], replacingAll: Bool,
        _ write: (Database, (CacheRecord) throws -> Void) throws -> Void
    ) throws {
        if replacingAll { try db.execute(sql: "DELETE FROM url_record") }
        // One prepared statement, values bound by position through SQLite's own calls: a
        // --refresh of 100,000 URLs rewrites every record.
        let upsert = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO url_record (\(Column.list)) VALUES (\(Column.placeholders))")
        try write(db) { record in try upsert.execute(binding: record.columnValues) }
        let delete = try db.cachedStatement(sql: "DELETE FROM url_record WHERE url = ?")
        for url in removed { try delete.execute(arguments: [url]) }
    }
}

extension BuildStore {
    /// The record of one URL, if the store holds one.
    package func urlRecord(for url: String) async throws -> CacheRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: URLRecordTable.selectAll + " WHERE url = ?", arguments: [url]).map(
                CacheRecord.init(row:))
        }
    }

    /// Every URL record.
    package func urlRecords() async throws -> [CacheRecord] {
        try await read { db in try Self.urlRecords(in: db) }
    }

    /// ``urlRecords()`` for code that cannot wait (``readNow(_:)``).
    package func urlRecordsNow() throws -> [CacheRecord] {
        try readNow { db in try Self.urlRecords(in: db) }
    }

    private static func urlRecords(in db: Database) throws -> [CacheRecord] {
        var records: [CacheRecord] = []
        let rows = try Row.fetchCursor(db, sql: URLRecordTable.selectAll)
        while let row = try rows.next() { records.append(CacheRecord(row: row)) }
        return records
    }

    /// Writes `changed` and removes the records of `removed`, in one transaction.
    /// `replacingAll`: `changed` is every record, and any other row goes.
    package func save(urlRecords changed: [CacheRecord], removing removed: [String], replacingAll: Bool = false)
        async throws
    {
        guard !changed.isEmpty || !removed.isEmpty || replacingAll else { return }
        try await write { db in
            try URLRecordTable.save(in: db, removing: removed, replacingAll: replacingAll) { _, upsert in
                for record in changed { try upsert(record) }
            }
        }
    }

    /// ``save(urlRecords:removing:replacingAll:)`` at the opening of a cache (the takeover of a
    /// cache written before the store), which cannot wait.
    package func saveNow(urlRecords changed: [CacheRecord]) throws {
        guard !changed.isEmpty else { return }
        try writeNow { db in
            try URLRecordTable.save(in: db, removing: [], replacingAll: false) { _, upsert in
                for record in changed { try upsert(record) }
            }
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
    /// A record that only took a 304's answer (``URLRecordTable/revalidationColumns``) updates
    /// those columns alone: a --refresh of 90,878 records binds half the values it would otherwise.
    package func save(
        urlRecords records: [String: CacheRecord], changedSince before: [String: CacheRecord]?,
        removing removed: [String]
    ) async throws {
        let urls = records.keys.sorted()
        try await write { db in
            try URLRecordTable.save(in: db, removing: removed, replacingAll: before == nil) { db, upsert in
                let revalidated = try db.cachedStatement(
                    sql: "UPDATE url_record SET "
                        + URLRecordTable.revalidationColumns.map { "\($0.name) = ?" }.joined(separator: ", ")
                        + " WHERE url = ?")
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
    }
}

extension CacheRecord {
    typealias Column = URLRecordTable.Column

    /// Read by column (by position, not by name or through `Decodable`): every record is read at
    /// the start of a build that loads anything.
    init(row: Row) {
        let redirects: String = row[Column.redirects]
        self.init(
            url: row[Column.url], finalURL: row[Column.finalURL],
            redirects: redirects.isEmpty ? [] : redirects.split(separator: "\n").map(String.init),
            status: row[Column.status], etag: row[Column.etag], lastModified: row[Column.lastModified],
            date: row[Column.date], age: row[Column.age], cacheControl: row[Column.cacheControl],
            expires: row[Column.expires], vary: row[Column.vary], contentType: row[Column.contentType],
            sha256: row[Column.sha256], size: row[Column.size], blobModified: row[Column.blobModified],
            responseTime: row[Column.responseTime], fetchedAt: row[Column.fetchedAt],
            validatedAt: row[Column.validatedAt], lastUsed: row[Column.lastUsed], link: row[Column.link])
    }

    /// The value of `column`. A URL holds no raw newline (it would not have parsed), so one
    /// separates the redirects.
    func value(of column: Column) -> ColumnValue {
        switch column {
        case .url: .text(url)
        case .finalURL: .text(finalURL)
        case .redirects: .text(redirects.joined(separator: "\n"))
        case .status: .integer(Int64(status))
        case .etag: .text(etag)
        case .lastModified: .text(lastModified)
        case .date: .text(date)
        case .age: .text(age)
        case .cacheControl: .text(cacheControl)
        case .expires: .text(expires)
        case .vary: .text(vary)
        case .contentType: .text(contentType)
        case .sha256: .text(sha256)
        case .size: .integer(size)
        case .blobModified: .real(blobModified)
        case .responseTime: .real(responseTime)
        case .fetchedAt: .real(fetchedAt)
        case .validatedAt: .real(validatedAt)
        case .lastUsed: .real(lastUsed)
        case .link: .text(link)
        }
    }

    /// The values of every column, in order.
    var columnValues: [ColumnValue] { Column.values(value(of:)) }

    /// The values of ``URLRecordTable/revalidationColumns``, then the URL their row is found by.
    var revalidationArguments: [ColumnValue] {
        URLRecordTable.revalidationColumns.map(value(of:)) + [.text(url)]
    }

    /// This record with the values of ``URLRecordTable/revalidationColumns`` taken from `other`:
    /// equal to `other` when that is all they differ in (a field added to the record later is
    /// written whole until it is listed there).
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
