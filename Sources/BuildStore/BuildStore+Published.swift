import Foundation
import GRDB
package import GalleryCore

/// The files the last build published, as its manifest lists them: what the next build removes
/// when it no longer makes them.
package struct PublishedFiles: Sendable, Equatable {
    /// The output folder's path.
    package var output: String
    /// The manifest file's stamp when the list was recorded: a manifest still so is the one the
    /// list was taken from.
    package var manifest: FileStamp
    /// As the manifest lists them.
    package var files: [String]

    package init(output: String, manifest: FileStamp, files: [String]) {
        self.output = output
        self.manifest = manifest
        self.files = files
    }
}

/// What the build that published a folder vouches for (``BuildStore/upToDate()``): while its
/// inputs are the same, every URL it used is still fresh and every file it published is as it
/// left it, a build would write the same files again, so the next one has nothing to do.
package struct UpToDateRecord: Sendable, Equatable {
    /// The SHA-256 (hex) of everything the build read: gallerygen, config, options, theme, feed.
    package var inputs: String
    /// Seconds since 1970: until then, every URL the build used is fresh in the cache.
    package var freshUntil: Double
    /// The build's counts, which a build with nothing to do reports again.
    package var photos: Int
    package var urls: Int
    package var pages: Int
    /// Each published file's stamp as the build left it, in the order of the list.
    package var files: [FileStamp]

    package init(inputs: String, freshUntil: Double, photos: Int, urls: Int, pages: Int, files: [FileStamp]) {
        self.inputs = inputs
        self.freshUntil = freshUntil
        self.photos = photos
        self.urls = urls
        self.pages = pages
        self.files = files
    }
}

/// The stamps of a list of files, packed as three 64-bit little-endian words each: 205,000 files
/// are one blob of 4.9 MB, read without a parse.
enum StampBlob {
    static func pack(_ stamps: [FileStamp]) -> Data {
        var data = Data(count: stamps.count * 24)
        data.withUnsafeMutableBytes { bytes in
            for (index, stamp) in stamps.enumerated() {
                func store(_ word: UInt64, at offset: Int) {
                    bytes.storeBytes(of: word.littleEndian, toByteOffset: index * 24 + offset * 8, as: UInt64.self)
                }
                store(UInt64(bitPattern: stamp.size), at: 0)
                store(UInt64(bitPattern: stamp.modified), at: 1)
                store(stamp.inode, at: 2)
            }
        }
        return data
    }

    static func unpack(_ data: Data) -> [FileStamp]? {
        guard data.count % 24 == 0 else { return nil }
        return data.withUnsafeBytes { bytes in
            (0..<(data.count / 24)).map { index in
                func word(_ offset: Int) -> UInt64 {
                    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 24 + offset * 8, as: UInt64.self))
                }
                return FileStamp(
                    size: Int64(bitPattern: word(0)), modified: Int64(bitPattern: word(1)), inode: word(2))
            }
        }
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
                output: site[0],
                manifest: FileStamp(size: site[1], modified: site[2], inode: UInt64(bitPattern: site[3])),
                files: files.isEmpty ? [] : files.split(separator: "\n").map(String.init))
        }
    }

    /// Records `published`, unless it is `before` (a build that changed nothing writes nothing).
    /// A list with a name holding a line break is not recorded (the next build reads the
    /// manifest). A new list takes back what was vouched for the old one.
    package func savePublishedFiles(_ published: PublishedFiles, replacing before: PublishedFiles?) async throws {
        guard published != before, !published.files.contains(where: { $0.contains("\n") }) else { return }
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO published_site (id, output, manifest_size, manifest_modified, "
                    + "manifest_inode, files) VALUES (1, ?, ?, ?, ?, ?)",
                arguments: [
                    published.output, published.manifest.size, published.manifest.modified,
                    Int64(bitPattern: published.manifest.inode), published.files.joined(separator: "\n"),
                ])
        }
        markWritten()
    }

    /// Records what a build vouches for with `published` (``upToDate()``): only when the store's
    /// list is that one (the same folder and manifest stamp; a list that failed to be saved is
    /// not vouched for) and the record has a stamp per file.
    package func saveUpToDate(_ record: UpToDateRecord, for published: PublishedFiles) async throws {
        guard record.files.count == published.files.count else { return }
        try await database.write { db in
            try db.execute(
                sql: "UPDATE published_site SET inputs = ?, fresh_until = ?, photos = ?, urls = ?, pages = ?, "
                    + "stamps = ? WHERE id = 1 AND output = ? AND manifest_size = ? AND manifest_modified = ? "
                    + "AND manifest_inode = ?",
                arguments: [
                    record.inputs, record.freshUntil, record.photos, record.urls, record.pages,
                    StampBlob.pack(record.files), published.output, published.manifest.size,
                    published.manifest.modified, Int64(bitPattern: published.manifest.inode),
                ])
        }
        markWritten()
    }

    /// The files the last build published with what it vouches for, when it vouched
    /// (``saveUpToDate(_:for:)``); nil otherwise.
    package func upToDate() async throws -> (PublishedFiles, UpToDateRecord)? {
        try await database.read { db in
            guard
                let site = try Row.fetchOne(
                    db,
                    sql: "SELECT output, manifest_size, manifest_modified, manifest_inode, files, inputs, fresh_until, "
                        + "photos, urls, pages, stamps FROM published_site WHERE inputs IS NOT NULL")
            else { return nil }
            let text: String = site[4]
            let files = text.isEmpty ? [] : text.split(separator: "\n").map(String.init)
            guard let stamps = StampBlob.unpack(site[10]), stamps.count == files.count else { return nil }
            return (
                PublishedFiles(
                    output: site[0],
                    manifest: FileStamp(size: site[1], modified: site[2], inode: UInt64(bitPattern: site[3])),
                    files: files),
                UpToDateRecord(
                    inputs: site[5], freshUntil: site[6], photos: site[7], urls: site[8], pages: site[9],
                    files: stamps)
            )
        }
    }

    /// Takes back what the last build vouched for: called before a build changes the output or
    /// the cache's records, so that a build killed on the way leaves nothing to trust.
    package func forgetUpToDate() throws {
        let changed = try database.write { db in
            try db.execute(sql: "UPDATE published_site SET inputs = NULL WHERE inputs IS NOT NULL")
            return db.changesCount > 0
        }
        if changed { markWritten() }
    }
}
