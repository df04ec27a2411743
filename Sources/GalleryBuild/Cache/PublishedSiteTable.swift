import BuildStore
import Foundation
import GRDB
import GalleryCore

/// The published file list's table in the build store: one row, the files the last build
/// published (``PublishedFiles``) and what that build vouches for (``UpToDateRecord``).
enum PublishedSiteTable: StoreTable {
    static let migrations = [
        StoreMigration(4, "published file list") { db in
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
        },
        StoreMigration(5, "up-to-date check") { db in
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
        },
        StoreMigration(11, "local inputs") { db in
            // The site's own files the build read (a folder feed's folders and files, local
            // photos), each path with the stamp it had (``LocalInputBlob``): the up-to-date check
            // stamps each again.
            try db.alter(table: "published_site") { table in table.add(column: "local_inputs", .blob) }
        },
    ]

    /// The columns of the row (`id` aside, which is 1).
    enum Column: Int, TableColumn {
        case output, manifestSize, manifestModified, manifestInode, files
        case inputs, freshUntil, photos, urls, pages, stamps, localInputs

        /// The list's columns, which ``BuildStore/savePublishedFiles(_:replacing:)`` writes.
        static let listed: [Column] = [.output, .manifestSize, .manifestModified, .manifestInode, .files]
        /// What a build vouches for, which ``BuildStore/saveUpToDate(_:for:)`` writes.
        static let vouched: [Column] = [.inputs, .freshUntil, .photos, .urls, .pages, .stamps, .localInputs]
    }
}

/// The files the last build published, as its manifest lists them: what the next build removes
/// when it no longer makes them.
struct PublishedFiles: Sendable, Equatable {
    /// The output folder's path.
    var output: String
    /// The manifest file's stamp when the list was recorded: a manifest still so is the one the
    /// list was taken from.
    var manifest: FileStamp
    /// As the manifest lists them.
    var files: [String]
}

/// What the build that published a folder vouches for (``BuildStore/upToDate()``): while its
/// inputs are the same, every URL it used is still fresh and every file it published is as it
/// left it, a build would write the same files again, so the next one has nothing to do.
struct UpToDateRecord: Sendable, Equatable {
    /// The SHA-256 (hex) of everything the build read: gallerygen, config, options, theme, feed.
    var inputs: String
    /// Seconds since 1970: until then, every URL the build used is fresh in the cache.
    var freshUntil: Double
    /// The build's counts, which a build with nothing to do reports again.
    var photos: Int
    var urls: Int
    var pages: Int
    /// Each published file's stamp as the build left it, in the order of the list.
    var files: [FileStamp]
    /// The site's own files the build read, sorted by path, each with the stamp it had before
    /// it was read: a hash of them is part of ``inputs``.
    var local: [SourceInput] = []
}

/// The site's own files a build read, packed: each path (which holds no NUL; it may hold a line
/// break), a NUL, and its stamp as four 64-bit little-endian words.
enum LocalInputBlob {
    static func pack(_ inputs: [SourceInput]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(inputs.count * 100)
        for input in inputs {
            bytes += input.path.utf8
            bytes.append(0)
            for word in [
                UInt64(bitPattern: input.stamp.size), UInt64(bitPattern: input.stamp.modified),
                UInt64(bitPattern: input.stamp.changed), input.stamp.inode,
            ] {
                withUnsafeBytes(of: word.littleEndian) { bytes += $0 }
            }
        }
        return Data(bytes)
    }

    /// Nil when the blob is not one ``pack(_:)`` made.
    static func unpack(_ data: Data?) -> [SourceInput]? {
        guard let data, !data.isEmpty else { return [] }
        return data.withUnsafeBytes { raw -> [SourceInput]? in
            var inputs: [SourceInput] = []
            var offset = 0
            while offset < raw.count {
                guard let end = raw[offset...].firstIndex(of: 0), end + 33 <= raw.count else { return nil }
                let path = String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<end]), as: UTF8.self)
                func word(_ index: Int) -> UInt64 {
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: end + 1 + 8 * index, as: UInt64.self))
                }
                inputs.append(
                    SourceInput(
                        path: path,
                        stamp: SourceStamp(
                            size: Int64(bitPattern: word(0)), modified: Int64(bitPattern: word(1)),
                            changed: Int64(bitPattern: word(2)), inode: word(3))))
                offset = end + 33
            }
            return inputs
        }
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
    private typealias Column = PublishedSiteTable.Column

    /// The files the last build published, and the manifest they were taken from; nil when no
    /// build recorded them.
    func publishedFiles() async throws -> PublishedFiles? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(Column.list) FROM published_site").map(Self.published(from:))
        }
    }

    private static func published(from row: Row) -> PublishedFiles {
        let files: String = row[Column.files]
        return PublishedFiles(
            output: row[Column.output],
            manifest: FileStamp(
                size: row[Column.manifestSize], modified: row[Column.manifestModified],
                inode: UInt64(bitPattern: row[Column.manifestInode])),
            files: files.isEmpty ? [] : files.split(separator: "\n").map(String.init))
    }

    /// Records `published`, unless it is `before` (a build that changed nothing writes nothing).
    /// A list with a name holding a line break is not recorded (the next build reads the
    /// manifest). A new list takes back what was vouched for the old one.
    func savePublishedFiles(_ published: PublishedFiles, replacing before: PublishedFiles?) async throws {
        guard published != before, !published.files.contains(where: { $0.contains("\n") }) else { return }
        let columns = Column.listed
        try await write { db in
            try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO published_site (id, \(columns.map(\.name).joined(separator: ", "))) "
                    + "VALUES (1, \(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
            ).execute(
                binding: columns.map { column in
                    switch column {
                    case .output: .text(published.output)
                    case .manifestSize: .integer(published.manifest.size)
                    case .manifestModified: .integer(published.manifest.modified)
                    case .manifestInode: .integer(Int64(bitPattern: published.manifest.inode))
                    case .files: .text(published.files.joined(separator: "\n"))
                    case .inputs, .freshUntil, .photos, .urls, .pages, .stamps, .localInputs:
                        preconditionFailure("not a column of the list: \(column)")
                    }
                })
        }
    }

    /// Records what a build vouches for with `published` (``upToDate()``): only when the store's
    /// list is that one (the same folder and manifest stamp; a list that failed to be saved is
    /// not vouched for) and the record has a stamp per file.
    func saveUpToDate(_ record: UpToDateRecord, for published: PublishedFiles) async throws {
        guard record.files.count == published.files.count else { return }
        let columns = Column.vouched
        // The stamps are a blob, which ``ColumnValue`` does not bind: GRDB's arguments do, once.
        var arguments: [(any DatabaseValueConvertible)?] = columns.map { column in
            switch column {
            case .inputs: record.inputs
            case .freshUntil: record.freshUntil
            case .photos: record.photos
            case .urls: record.urls
            case .pages: record.pages
            case .stamps: StampBlob.pack(record.files)
            case .localInputs: LocalInputBlob.pack(record.local)
            case .output, .manifestSize, .manifestModified, .manifestInode, .files:
                preconditionFailure("not a column of what a build vouches for: \(column)")
            }
        }
        arguments += [
            published.output, published.manifest.size, published.manifest.modified,
            Int64(bitPattern: published.manifest.inode),
        ]
        try await write { [arguments = StatementArguments(arguments)] db in
            try db.execute(
                sql: "UPDATE published_site SET \(columns.map { "\($0.name) = ?" }.joined(separator: ", ")) "
                    + "WHERE id = 1 AND output = ? AND manifest_size = ? AND manifest_modified = ? "
                    + "AND manifest_inode = ?",
                arguments: arguments)
        }
    }

    /// The files the last build published with what it vouches for, when it vouched
    /// (``saveUpToDate(_:for:)``); nil otherwise.
    func upToDate() async throws -> (PublishedFiles, UpToDateRecord)? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(Column.list) FROM published_site WHERE inputs IS NOT NULL")
            else { return nil }
            let published = Self.published(from: row)
            guard let stamps = StampBlob.unpack(row[Column.stamps]), stamps.count == published.files.count,
                let local = LocalInputBlob.unpack(row[Column.localInputs])
            else {
                return nil
            }
            return (
                published,
                UpToDateRecord(
                    inputs: row[Column.inputs], freshUntil: row[Column.freshUntil], photos: row[Column.photos],
                    urls: row[Column.urls], pages: row[Column.pages], files: stamps, local: local)
            )
        }
    }

    /// Takes back what the last build vouched for: called before a build changes the output or
    /// the cache's records, so that a build killed on the way leaves nothing to trust.
    func forgetUpToDate() async throws {
        try await write { db in
            try db.execute(sql: "UPDATE published_site SET inputs = NULL WHERE inputs IS NOT NULL")
        }
    }
}
