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
    /// As the manifest lists them.
    package var files: [String]

    package init(output: String, manifestSize: Int64, manifestStamp: FileStamp, files: [String]) {
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
                    db,
                    sql: "SELECT output, manifest_size, manifest_modified, manifest_inode, files FROM published_site")
            else { return nil }
            let files: String = site[4]
            return PublishedFiles(
                output: site[0], manifestSize: site[1],
                manifestStamp: FileStamp(modified: site[2], inode: UInt64(bitPattern: site[3])),
                files: files.isEmpty ? [] : files.split(separator: "\n").map(String.init))
        }
    }

    /// Records `published`, unless it is `before` (a build that changed nothing writes nothing).
    /// A list with a name holding a line break is not recorded (the next build reads the
    /// manifest).
    package func savePublishedFiles(_ published: PublishedFiles, replacing before: PublishedFiles?) async throws {
        guard published != before, !published.files.contains(where: { $0.contains("\n") }) else { return }
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO published_site (id, output, manifest_size, manifest_modified, "
                    + "manifest_inode, files) VALUES (1, ?, ?, ?, ?, ?)",
                arguments: [
                    published.output, published.manifestSize, published.manifestStamp.modified,
                    Int64(bitPattern: published.manifestStamp.inode), published.files.joined(separator: "\n"),
                ])
        }
        markWritten()
    }
}
