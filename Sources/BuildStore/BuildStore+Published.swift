import GRDB
package import GalleryCore

/// The files the last build published, as its manifest lists them: what the next build removes
/// when it no longer makes them.
package struct PublishedFiles: Sendable, Equatable {
    /// The output folder's path.
    package var output: String
    /// The manifest file's size, modification time (to the nanosecond) and inode when the list
    /// was recorded: a manifest still so is the one the list was taken from.
    package var manifestSize: Int64
    package var manifestStamp: FileStamp
    package var files: Set<String>

    package init(output: String, manifestSize: Int64, manifestStamp: FileStamp, files: Set<String>) {
        self.output = output
        self.manifestSize = manifestSize
        self.manifestStamp = manifestStamp
        self.files = files
    }
}

extension BuildStore {
    /// The files the last build published, and the manifest they were taken from; nil when no
    /// build recorded them.
    package func publishedFiles() async throws -> PublishedFiles? {
        try await database.read { db in
            guard
                let site = try Row.fetchOne(
                    db, sql: "SELECT output, manifest_size, manifest_modified, manifest_inode FROM published_site")
            else { return nil }
            let files = try Set(String.fetchCursor(db, sql: "SELECT path FROM published_file"))
            return PublishedFiles(
                output: site[0], manifestSize: site[1],
                manifestStamp: FileStamp(modified: site[2], inode: UInt64(bitPattern: site[3])), files: files)
        }
    }

    /// Records `published`, writing only the files that differ from `before` (all of them, and
    /// no other, without it).
    package func savePublishedFiles(_ published: PublishedFiles, replacing before: PublishedFiles?) async throws {
        guard published != before else { return }
        let replacingAll = before == nil || before?.output != published.output
        let added = replacingAll ? published.files : published.files.subtracting(before?.files ?? [])
        let removed = replacingAll ? [] : (before?.files ?? []).subtracting(published.files)
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO published_site (id, output, manifest_size, manifest_modified, "
                    + "manifest_inode) VALUES (1, ?, ?, ?, ?)",
                arguments: [
                    published.output, published.manifestSize, published.manifestStamp.modified,
                    Int64(bitPattern: published.manifestStamp.inode),
                ])
            if replacingAll { try db.execute(sql: "DELETE FROM published_file") }
            let insert = try db.cachedStatement(sql: "INSERT OR REPLACE INTO published_file (path) VALUES (?)")
            for path in added { try insert.execute(arguments: [path]) }
            let delete = try db.cachedStatement(sql: "DELETE FROM published_file WHERE path = ?")
            for path in removed { try delete.execute(arguments: [path]) }
        }
        markWritten()
    }
}
