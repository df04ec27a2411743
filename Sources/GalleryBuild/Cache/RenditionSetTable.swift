import BuildStore
import Foundation
import GRDB
import GalleryCore

/// The thumbnail sets' tables in the build store: a row per set (``RenditionSetRecord``), by
/// its key (the original's hash and the recipe), and a row per file of each set, in order.
enum RenditionSetTable: StoreTable {
    static let migrations = [
        StoreMigration(3, "rendition sets") { db in
            // As v3 made them (a migration never changes; v6, v7 and v9 add columns).
            try db.create(table: "rendition_set", options: [.withoutRowID]) { table in
                table.primaryKey("key", .text)
                table.column("width", .integer).notNull()
                table.column("height", .integer).notNull()
                table.column("placeholder_color", .text).notNull()
                table.column("placeholder_uri", .text).notNull()
                table.column("transparent", .boolean).notNull()
                for name in ["camera", "lens", "focal_length", "aperture", "exposure", "iso", "taken"] {
                    table.column(name, .text)
                }
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
        },
        StoreMigration(6, "what the photos say") { db in
            // What an original says about itself (XMP, IPTC, EXIF) lives with its thumbnail set:
            // read with the same header, kept and evicted with it, shared with it. NULL
            // `metadata_read`: a set made before it was read.
            try db.alter(table: "rendition_set") { table in
                table.add(column: "metadata_read", .boolean)
                for name in [
                    "title", "description", "alt", "keywords", "taken_local", "taken_offset", "creator", "rights",
                    "licence",
                ] {
                    table.add(column: name, .text)
                }
                table.add(column: "rating", .integer)
            }
            // The place v1 kept for it, never filled (made by the gallerygen of v1 to v5).
            try db.execute(sql: "DROP TABLE IF EXISTS photo_metadata")
        },
        StoreMigration(7, "where the photos were taken") { db in
            // `59.91387,10.75225`. A set read before (`metadata_read` 1) reads its original's
            // header once more for the place, where the cache still has it (no pixel decoded);
            // the rest keep what was read (RenditionSetRecord.metadataVersion).
            try db.alter(table: "rendition_set") { table in table.add(column: "location", .text) }
        },
        StoreMigration(9, "clips") { db in
            // A clip's set: how long it runs, whether its videos have sound, and the recipe they
            // were made with (VideoRecipe.fingerprint); NULL for a photo's.
            try db.alter(table: "rendition_set") { table in
                table.add(column: "video_duration", .double)
                table.add(column: "video_audio", .boolean)
                table.add(column: "video_recipe", .text)
            }
        },
    ]

    /// The columns of a set's row.
    enum SetColumn: Int, TableColumn {
        case key, width, height, placeholderColor, placeholderURI, transparent
        case camera, lens, focalLength, aperture, exposure, iso, taken
        case lastUsed
        /// What the photo says (nil in the record: not read, and the row's values are kept).
        case metadataRead, rating, title, description, alt, keywords, takenLocal, takenOffset, creator, rights
        case licence, location
        /// A clip's (``VideoDetails``); NULL for a photo's set.
        case videoDuration, videoAudio, videoRecipe

        /// The columns of what the photo says.
        static let metadata: [SetColumn] = [
            .metadataRead, .rating, .title, .description, .alt, .keywords, .takenLocal, .takenOffset, .creator,
            .rights, .licence, .location,
        ]
    }

    /// The columns of a set's file's row.
    enum FileColumn: Int, TableColumn {
        case setKey, position, format, width, height, path, bytes, sha256, stampModified, stampInode
    }
}

/// A thumbnail set as the store keeps it: the processed image, the stamp of each file when its
/// hash was taken (nil for a file not stamped), and when a build last used it.
struct RenditionSetRecord: Sendable, Equatable {
    var image: ProcessedImage
    /// One per rendition, in order.
    var stamps: [FileStamp?]
    var lastUsed: Double

    typealias SetColumn = RenditionSetTable.SetColumn

    /// What `metadata_read` says of a set: 0 (or NULL), nothing read; 1, read by gallerygen 0.x
    /// before the place was read (migration v6); 2, read with the place (v7). A set read by an
    /// older reader is read again where its original is still in the cache, else shown as read.
    static let metadataVersion = 2

    /// The value of `column` for the set of `key`.
    func value(of column: SetColumn, key: String) -> ColumnValue {
        let camera = image.camera ?? CameraDetails()
        let metadata = image.metadata
        return switch column {
        case .key: .text(key)
        case .width: .integer(Int64(image.width))
        case .height: .integer(Int64(image.height))
        case .placeholderColor: .text(image.placeholder.color)
        case .placeholderURI: .text(image.placeholder.dataURI)
        case .transparent: .integer(image.hasTransparency ? 1 : 0)
        case .camera: .text(camera.camera)
        case .lens: .text(camera.lens)
        case .focalLength: .text(camera.focalLength)
        case .aperture: .text(camera.aperture)
        case .exposure: .text(camera.exposure)
        case .iso: .text(camera.iso)
        case .taken: .text(camera.taken)
        case .lastUsed: .real(lastUsed)
        default: Self.value(of: column, metadata: metadata, video: image.video)
        }
    }

    /// The value of a column of what the photo says, or of a clip's.
    static func value(of column: SetColumn, metadata: PhotoMetadata?, video: VideoDetails?) -> ColumnValue {
        switch column {
        case .metadataRead: .integer(metadata == nil ? 0 : Int64(metadataVersion))
        case .rating: metadata?.rating.map { .integer(Int64($0)) } ?? .text(nil)
        case .title: .text(metadata?.title)
        case .description: .text(metadata?.description)
        case .alt: .text(metadata?.alt)
        case .keywords: .text(metadata.flatMap { $0.keywords.isEmpty ? nil : $0.keywords.joined(separator: "\n") })
        case .takenLocal: .text(metadata?.taken?.local)
        case .takenOffset: .text(metadata?.taken?.offset)
        case .creator: .text(metadata?.creator)
        case .rights: .text(metadata?.rights)
        case .licence: .text(metadata?.licence)
        case .location: .text(metadata?.location?.stored)
        case .videoDuration: video.map { .real($0.duration) } ?? .text(nil)
        case .videoAudio: video.map { .integer($0.hasAudio ? 1 : 0) } ?? .text(nil)
        case .videoRecipe: .text(video?.recipe)
        case .key, .width, .height, .placeholderColor, .placeholderURI, .transparent, .camera, .lens, .focalLength,
            .aperture, .exposure, .iso, .taken, .lastUsed:
            preconditionFailure("not a column of what the photo says: \(column)")
        }
    }

    /// The clip's details of a set's row; nil for a photo's.
    static func video(from row: Row) -> VideoDetails? {
        let duration: Double? = row[SetColumn.videoDuration]
        let recipe: String? = row[SetColumn.videoRecipe]
        guard let duration, let recipe else { return nil }
        return VideoDetails(duration: duration, hasAudio: row[SetColumn.videoAudio] ?? false, recipe: recipe)
    }

    /// What the photo says, from a set's row, when it was read by a reader of at least `version`
    /// (``metadataVersion``).
    static func metadata(from row: Row, version: Int = metadataVersion) -> PhotoMetadata? {
        let read: Int? = row[SetColumn.metadataRead]
        guard let read, read >= version else { return nil }
        let local: String? = row[SetColumn.takenLocal]
        let keywords: String? = row[SetColumn.keywords]
        return PhotoMetadata(
            title: row[SetColumn.title], description: row[SetColumn.description], alt: row[SetColumn.alt],
            keywords: keywords.map { $0.split(separator: "\n").map(String.init) } ?? [],
            taken: local.flatMap { CaptureTime(local: $0, offset: row[SetColumn.takenOffset]) },
            rating: row[SetColumn.rating], creator: row[SetColumn.creator], rights: row[SetColumn.rights],
            licence: row[SetColumn.licence],
            location: (row[SetColumn.location] as String?).flatMap(GeoPoint.init(stored:)))
    }
}

/// What eviction and `gallerygen cache` need of a set: its files, their bytes and its last use.
struct RenditionSetSummary: Sendable {
    var key: String
    var fileNames: [String]
    var bytes: Int64
    var lastUsed: Double
}

extension BuildStore {
    typealias SetColumn = RenditionSetTable.SetColumn
    typealias FileColumn = RenditionSetTable.FileColumn

    /// The sets of `keys` the store has, by key, read in one transaction without holding a thread
    /// (a rebuild of 100,000 photos asks for all of them at once).
    func renditionSets(keys: [String]) async throws -> [String: RenditionSetRecord] {
        guard !keys.isEmpty else { return [:] }
        return try await read { db in
            var records: [String: RenditionSetRecord] = [:]
            records.reserveCapacity(keys.count)
            // SQLite takes at most 32,766 parameters a statement.
            for start in stride(from: 0, to: keys.count, by: 10_000) {
                let chunk = Array(keys[start..<min(keys.count, start + 10_000)])
                try Self.read(chunk, from: db, into: &records)
            }
            return records
        }
    }

    /// The set of `key`; nil when the store has none.
    func renditionSet(key: String) async throws -> RenditionSetRecord? {
        try await renditionSets(keys: [key])[key]
    }

    private static func read(_ keys: [String], from db: Database, into records: inout [String: RenditionSetRecord])
        throws
    {
        let marks = Array(repeating: "?", count: keys.count).joined(separator: ", ")
        let arguments = StatementArguments(keys)
        var renditions: [String: (files: [Rendition], stamps: [FileStamp?])] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: "SELECT \(FileColumn.list) FROM rendition WHERE set_key IN (\(marks)) ORDER BY set_key, position",
            arguments: arguments)
        var unreadable: Set<String> = []
        while let row = try rows.next() {
            let key: String = row[FileColumn.setKey]
            guard let format = ImageFormat(rawValue: row[FileColumn.format]) else {
                unreadable.insert(key)
                continue
            }
            let bytes: Int64 = row[FileColumn.bytes]
            let modified: Int64? = row[FileColumn.stampModified]
            let inode: Int64? = row[FileColumn.stampInode]
            renditions[key, default: ([], [])].files.append(
                Rendition(
                    format: format, width: row[FileColumn.width], height: row[FileColumn.height],
                    path: row[FileColumn.path], byteCount: bytes, sha256: row[FileColumn.sha256]))
            renditions[key, default: ([], [])].stamps.append(
                modified.flatMap { modified in
                    inode.map { FileStamp(size: bytes, modified: modified, inode: UInt64(bitPattern: $0)) }
                })
        }
        let sets = try Row.fetchCursor(
            db, sql: "SELECT \(SetColumn.list) FROM rendition_set WHERE key IN (\(marks))", arguments: arguments)
        while let set = try sets.next() {
            let key: String = set[SetColumn.key]
            // A set whose files cannot be read is no set: it is made again.
            guard !unreadable.contains(key), let files = renditions[key] else { continue }
            let camera = CameraDetails(
                camera: set[SetColumn.camera], lens: set[SetColumn.lens], focalLength: set[SetColumn.focalLength],
                aperture: set[SetColumn.aperture], exposure: set[SetColumn.exposure], iso: set[SetColumn.iso],
                taken: set[SetColumn.taken])
            let image = ProcessedImage(
                width: set[SetColumn.width], height: set[SetColumn.height], renditions: files.files,
                placeholder: Placeholder(
                    color: set[SetColumn.placeholderColor], dataURI: set[SetColumn.placeholderURI]),
                hasTransparency: set[SetColumn.transparent], camera: camera == CameraDetails() ? nil : camera,
                metadata: RenditionSetRecord.metadata(from: set), video: RenditionSetRecord.video(from: set))
            records[key] = RenditionSetRecord(image: image, stamps: files.stamps, lastUsed: set[SetColumn.lastUsed])
        }
    }

    /// Writes the sets of `records` by key, each replacing what the store had under its key, in
    /// one transaction. Written after the files they name.
    func saveRenditionSets(_ records: [(key: String, record: RenditionSetRecord)]) async throws {
        guard !records.isEmpty else { return }
        try await write { db in
            for (key, record) in records { try Self.insert(record, key: key, into: db) }
        }
    }

    /// ``saveRenditionSets(_:)`` for code that cannot wait: the one-time takeover of a cache
    /// written before the store, when the cache is opened.
    func saveRenditionSetsNow(_ records: [(key: String, record: RenditionSetRecord)]) throws {
        guard !records.isEmpty else { return }
        try writeNow { db in
            for (key, record) in records { try Self.insert(record, key: key, into: db) }
        }
    }

    private static func insert(_ record: RenditionSetRecord, key: String, into db: Database) throws {
        // The set's old files go with it (a set replaced may have fewer).
        try db.cachedStatement(sql: "DELETE FROM rendition WHERE set_key = ?").execute(arguments: [key])
        // A record that has not read what its photo says (nil) leaves what the row holds of it:
        // a set rewritten for its files' new stamps keeps the metadata read earlier.
        let updated = SetColumn.allCases.dropFirst().filter {
            record.image.metadata != nil || !SetColumn.metadata.contains($0)
        }
        try db.cachedStatement(
            sql: "INSERT INTO rendition_set (\(SetColumn.list)) VALUES (\(SetColumn.placeholders)) "
                + "ON CONFLICT(key) DO UPDATE SET "
                + updated.map { "\($0.name) = excluded.\($0.name)" }.joined(separator: ", ")
        ).execute(binding: SetColumn.values { record.value(of: $0, key: key) })
        let insert = try db.cachedStatement(
            sql: "INSERT INTO rendition (\(FileColumn.list)) VALUES (\(FileColumn.placeholders))")
        for (position, rendition) in record.image.renditions.enumerated() {
            let stamp = position < record.stamps.count ? record.stamps[position] : nil
            try insert.execute(
                binding: FileColumn.values { column in
                    switch column {
                    case .setKey: .text(key)
                    case .position: .integer(Int64(position))
                    case .format: .text(rendition.format.rawValue)
                    case .width: .integer(Int64(rendition.width))
                    case .height: .integer(Int64(rendition.height))
                    case .path: .text(rendition.path)
                    case .bytes: .integer(rendition.byteCount)
                    case .sha256: .text(rendition.sha256)
                    case .stampModified: stamp.map { .integer($0.modified) } ?? .text(nil)
                    case .stampInode: stamp.map { .integer(Int64(bitPattern: $0.inode)) } ?? .text(nil)
                    }
                })
        }
    }

    /// What older readers read of the sets of `keys` (``RenditionSetRecord/metadataVersion``),
    /// for the sets whose originals are gone: shown as they were, without a place.
    func olderMetadata(keys: [String]) async throws -> [String: PhotoMetadata] {
        guard !keys.isEmpty else { return [:] }
        return try await read { db in
            var found: [String: PhotoMetadata] = [:]
            for chunk in stride(from: 0, to: keys.count, by: 500) {
                let part = Array(keys[chunk..<min(chunk + 500, keys.count)])
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT \(SetColumn.list) FROM rendition_set WHERE key IN ("
                        + Array(repeating: "?", count: part.count).joined(separator: ", ") + ")",
                    arguments: StatementArguments(part))
                while let row = try rows.next() {
                    if let metadata = RenditionSetRecord.metadata(from: row, version: 1) {
                        found[row[SetColumn.key]] = metadata
                    }
                }
            }
            return found
        }
    }

    /// Records what the originals of the sets of `keys` say, read after the sets were made.
    func saveMetadata(_ metadata: [(key: String, metadata: PhotoMetadata)]) async throws {
        guard !metadata.isEmpty else { return }
        let said = SetColumn.metadata
        try await write { db in
            let update = try db.cachedStatement(
                sql: "UPDATE rendition_set SET \(said.map { "\($0.name) = ?" }.joined(separator: ", ")) WHERE key = ?")
            for (key, metadata) in metadata {
                try update.execute(
                    binding: said.map { RenditionSetRecord.value(of: $0, metadata: metadata, video: nil) } + [
                        .text(key)
                    ])
            }
        }
    }

    /// Moves the last use of the sets of `keys` to `time`.
    func touchRenditionSets(_ keys: [String], at time: Double) async throws {
        guard !keys.isEmpty else { return }
        try await write { db in
            let update = try db.cachedStatement(sql: "UPDATE rendition_set SET last_used = ? WHERE key = ?")
            for key in keys { try update.execute(arguments: [time, key]) }
        }
    }

    /// Every set, with its files, their bytes as recorded and its last use.
    func renditionSetSummaries() async throws -> [RenditionSetSummary] {
        try await read { db in
            var summaries: [String: RenditionSetSummary] = [:]
            let sets = try Row.fetchCursor(db, sql: "SELECT key, last_used FROM rendition_set")
            while let row = try sets.next() {
                let key: String = row["key"]
                summaries[key] = RenditionSetSummary(key: key, fileNames: [], bytes: 0, lastUsed: row["last_used"])
            }
            let files = try Row.fetchCursor(
                db, sql: "SELECT set_key, path, bytes FROM rendition ORDER BY set_key, position")
            while let row = try files.next() {
                let key: String = row["set_key"]
                let path: String = row["path"]
                let bytes: Int64 = row["bytes"]
                summaries[key]?.fileNames.append(String(path.split(separator: "/").last ?? ""))
                summaries[key]?.bytes += bytes
            }
            return Array(summaries.values)
        }
    }

    /// Removes the sets of `keys` (their files are the caller's to remove, first).
    func removeRenditionSets(_ keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        try await write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM rendition_set WHERE key = ?")
            for key in keys { try delete.execute(arguments: [key]) }
        }
    }
}
