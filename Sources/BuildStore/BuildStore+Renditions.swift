import Foundation
import GRDB
package import GalleryCore

/// A thumbnail set as the store keeps it: the processed image, the stamp of each file when its
/// hash was taken (nil for a file not stamped), and when a build last used it.
package struct RenditionSetRecord: Sendable, Equatable {
    package var image: ProcessedImage
    /// One per rendition, in order.
    package var stamps: [FileStamp?]
    package var lastUsed: Double

    package init(image: ProcessedImage, stamps: [FileStamp?], lastUsed: Double) {
        self.image = image
        self.stamps = stamps
        self.lastUsed = lastUsed
    }

    static let cameraColumns = [
        "camera", "lens", "focal_length", "aperture", "exposure", "iso", "taken",
    ]

    /// Beside `metadata_read` and `rating`; keywords one a line.
    static let metadataColumns = [
        "title", "description", "alt", "keywords", "taken_local", "taken_offset", "creator", "rights", "licence",
        "location",
    ]

    /// The columns of a set's row, in the order ``BuildStore`` reads and writes them.
    static let columns =
        ["key", "width", "height", "placeholder_color", "placeholder_uri", "transparent"] + cameraColumns
        + ["last_used", "metadata_read", "rating"] + metadataColumns + videoColumns

    /// A clip's (``VideoDetails``), after the metadata; NULL for a photo's set.
    static let videoColumns = ["video_duration", "video_audio", "video_recipe"]

    /// What `metadata_read` says of a set: 0 (or NULL), nothing read; 1, read by gallerygen 0.x
    /// before the place was read (migration v6); 2, read with the place (v7). A set read by an
    /// older reader is read again where its original is still in the cache, else shown as read.
    static let metadataVersion = 2

    static func metadataArguments(_ metadata: PhotoMetadata?) -> [(any DatabaseValueConvertible)?] {
        guard let metadata else { return [0, nil] + metadataColumns.map { _ in nil } }
        return [
            metadataVersion, metadata.rating, metadata.title, metadata.description, metadata.alt,
            metadata.keywords.isEmpty ? nil : metadata.keywords.joined(separator: "\n"), metadata.taken?.local,
            metadata.taken?.offset, metadata.creator, metadata.rights, metadata.licence, metadata.location?.stored,
        ]
    }

    /// The clip's details of a set's row, read from column `start` on; nil for a photo's.
    static func video(from row: Row, at start: Int) -> VideoDetails? {
        let duration: Double? = row[start]
        let recipe: String? = row[start + 2]
        guard let duration, let recipe else { return nil }
        return VideoDetails(duration: duration, hasAudio: row[start + 1] ?? false, recipe: recipe)
    }

    /// The metadata of a set's row read from column `start` on (`metadata_read` first), when it
    /// was read by a reader of at least `version` (``metadataVersion``).
    static func metadata(from row: Row, at start: Int, version: Int = metadataVersion) -> PhotoMetadata? {
        let read: Int? = row[start]
        guard let read, read >= version else { return nil }
        let local: String? = row[start + 6]
        let keywords: String? = row[start + 5]
        return PhotoMetadata(
            title: row[start + 2], description: row[start + 3], alt: row[start + 4],
            keywords: keywords.map { $0.split(separator: "\n").map(String.init) } ?? [],
            taken: local.flatMap { CaptureTime(local: $0, offset: row[start + 7]) }, rating: row[start + 1],
            creator: row[start + 8], rights: row[start + 9], licence: row[start + 10],
            location: (row[start + 11] as String?).flatMap(GeoPoint.init(stored:)))
    }
}

/// What eviction and `gallerygen cache` need of a set: its files, their bytes and its last use.
package struct RenditionSetSummary: Sendable {
    package var key: String
    package var fileNames: [String]
    package var bytes: Int64
    package var lastUsed: Double
}

extension BuildStore {
    /// The sets of `keys` the store has, by key, read in one transaction without holding a thread
    /// (a rebuild of 100,000 photos asks for all of them at once).
    package func renditionSets(keys: [String]) async throws -> [String: RenditionSetRecord] {
        guard !keys.isEmpty else { return [:] }
        return try await database.read { db in
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
    package func renditionSet(key: String) async throws -> RenditionSetRecord? {
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
            sql: "SELECT set_key, format, width, height, path, bytes, sha256, stamp_modified, stamp_inode "
                + "FROM rendition WHERE set_key IN (\(marks)) ORDER BY set_key, position",
            arguments: arguments)
        var unreadable: Set<String> = []
        while let row = try rows.next() {
            let key: String = row[0]
            guard let format = ImageFormat(rawValue: row[1]) else {
                unreadable.insert(key)
                continue
            }
            let modified: Int64? = row[7]
            let inode: Int64? = row[8]
            renditions[key, default: ([], [])].files.append(
                Rendition(
                    format: format, width: row[2], height: row[3], path: row[4], byteCount: row[5], sha256: row[6]))
            renditions[key, default: ([], [])].stamps.append(
                modified.flatMap { modified in
                    inode.map { FileStamp(size: row[5], modified: modified, inode: UInt64(bitPattern: $0)) }
                })
        }
        let sets = try Row.fetchCursor(
            db,
            sql: "SELECT \(RenditionSetRecord.columns.joined(separator: ", ")) FROM rendition_set "
                + "WHERE key IN (\(marks))",
            arguments: arguments)
        while let set = try sets.next() {
            let key: String = set[0]
            // A set whose files cannot be read is no set: it is made again.
            guard !unreadable.contains(key), let files = renditions[key] else { continue }
            let camera = CameraDetails(
                camera: set[6], lens: set[7], focalLength: set[8], aperture: set[9], exposure: set[10], iso: set[11],
                taken: set[12])
            let image = ProcessedImage(
                width: set[1], height: set[2], renditions: files.files,
                placeholder: Placeholder(color: set[3], dataURI: set[4]), hasTransparency: set[5],
                camera: camera == CameraDetails() ? nil : camera,
                metadata: RenditionSetRecord.metadata(from: set, at: 14),
                video: RenditionSetRecord.video(from: set, at: 16 + RenditionSetRecord.metadataColumns.count))
            records[key] = RenditionSetRecord(image: image, stamps: files.stamps, lastUsed: set[13])
        }
    }

    /// Writes the sets of `records` by key, each replacing what the store had under its key, in
    /// one transaction. Written after the files they name.
    package func saveRenditionSets(_ records: [(key: String, record: RenditionSetRecord)]) async throws {
        guard !records.isEmpty else { return }
        try await database.write { db in
            for (key, record) in records { try Self.insert(record, key: key, into: db) }
        }
        markWritten()
    }

    /// ``saveRenditionSets(_:)`` for code that cannot wait: the one-time takeover of a cache
    /// written before the store, when the cache is opened.
    package func saveRenditionSetsNow(_ records: [(key: String, record: RenditionSetRecord)]) throws {
        guard !records.isEmpty else { return }
        try database.write { db in
            for (key, record) in records { try Self.insert(record, key: key, into: db) }
        }
        markWritten()
    }

    private static func insert(_ record: RenditionSetRecord, key: String, into db: Database) throws {
        let image = record.image
        let camera = image.camera ?? CameraDetails()
        let columns = RenditionSetRecord.columns
        var arguments: [(any DatabaseValueConvertible)?] = [
            key, image.width, image.height, image.placeholder.color, image.placeholder.dataURI, image.hasTransparency,
        ]
        arguments += [camera.camera, camera.lens, camera.focalLength, camera.aperture, camera.exposure, camera.iso]
        arguments += [camera.taken, record.lastUsed]
        arguments += RenditionSetRecord.metadataArguments(image.metadata)
        arguments += [image.video?.duration, image.video?.hasAudio, image.video?.recipe]
        // The set's old files go with it (a set replaced may have fewer).
        try db.cachedStatement(sql: "DELETE FROM rendition WHERE set_key = ?").execute(arguments: [key])
        // A record that has not read what its photo says (nil) leaves what the row holds of it:
        // a set rewritten for its files' new stamps keeps the metadata read earlier.
        let metadataColumns = Set(["metadata_read", "rating"] + RenditionSetRecord.metadataColumns)
        let updated = columns.dropFirst().filter { image.metadata != nil || !metadataColumns.contains($0) }
        try db.cachedStatement(
            sql: "INSERT INTO rendition_set (\(columns.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: columns.count).joined(separator: ", ")
                + ") ON CONFLICT(key) DO UPDATE SET "
                + updated.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        ).execute(arguments: StatementArguments(arguments))
        let insert = try db.cachedStatement(
            sql: "INSERT INTO rendition (set_key, position, format, width, height, path, bytes, sha256, "
                + "stamp_modified, stamp_inode) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for (position, rendition) in image.renditions.enumerated() {
            let stamp = position < record.stamps.count ? record.stamps[position] : nil
            try insert.execute(arguments: [
                key, position, rendition.format.rawValue, rendition.width, rendition.height, rendition.path,
                rendition.byteCount, rendition.sha256, stamp?.modified, stamp.map { Int64(bitPattern: $0.inode) },
            ])
        }
    }

    /// What older readers read of the sets of `keys` (``RenditionSetRecord/metadataVersion``),
    /// for the sets whose originals are gone: shown as they were, without a place.
    package func olderMetadata(keys: [String]) throws -> [String: PhotoMetadata] {
        guard !keys.isEmpty else { return [:] }
        let columns = ["key", "metadata_read", "rating"] + RenditionSetRecord.metadataColumns
        return try database.read { db in
            var found: [String: PhotoMetadata] = [:]
            for chunk in stride(from: 0, to: keys.count, by: 500) {
                let part = Array(keys[chunk..<min(chunk + 500, keys.count)])
                let rows = try Row.fetchCursor(
                    db,
                    sql: "SELECT \(columns.joined(separator: ", ")) FROM rendition_set WHERE key IN ("
                        + Array(repeating: "?", count: part.count).joined(separator: ", ") + ")",
                    arguments: StatementArguments(part))
                while let row = try rows.next() {
                    if let metadata = RenditionSetRecord.metadata(from: row, at: 1, version: 1) {
                        found[row[0]] = metadata
                    }
                }
            }
            return found
        }
    }

    /// Records what the originals of the sets of `keys` say, read after the sets were made.
    package func saveMetadata(_ metadata: [(key: String, metadata: PhotoMetadata)]) async throws {
        guard !metadata.isEmpty else { return }
        let assignments = (["metadata_read", "rating"] + RenditionSetRecord.metadataColumns).map { "\($0) = ?" }
        try await database.write { db in
            let update = try db.cachedStatement(
                sql: "UPDATE rendition_set SET \(assignments.joined(separator: ", ")) WHERE key = ?")
            for (key, metadata) in metadata {
                try update.execute(
                    arguments: StatementArguments(RenditionSetRecord.metadataArguments(metadata) + [key]))
            }
        }
        markWritten()
    }

    /// Moves the last use of the sets of `keys` to `time`.
    package func touchRenditionSets(_ keys: [String], at time: Double) async throws {
        guard !keys.isEmpty else { return }
        try await database.write { db in
            let update = try db.cachedStatement(sql: "UPDATE rendition_set SET last_used = ? WHERE key = ?")
            for key in keys { try update.execute(arguments: [time, key]) }
        }
        markWritten()
    }

    /// Every set, with its files, their bytes as recorded and its last use.
    package func renditionSetSummaries() throws -> [RenditionSetSummary] {
        try database.read { db in
            var summaries: [String: RenditionSetSummary] = [:]
            let sets = try Row.fetchCursor(db, sql: "SELECT key, last_used FROM rendition_set")
            while let row = try sets.next() {
                let key: String = row[0]
                summaries[key] = RenditionSetSummary(key: key, fileNames: [], bytes: 0, lastUsed: row[1])
            }
            let files = try Row.fetchCursor(
                db, sql: "SELECT set_key, path, bytes FROM rendition ORDER BY set_key, position")
            while let row = try files.next() {
                let key: String = row[0]
                let path: String = row[1]
                let bytes: Int64 = row[2]
                summaries[key]?.fileNames.append(String(path.split(separator: "/").last ?? ""))
                summaries[key]?.bytes += bytes
            }
            return Array(summaries.values)
        }
    }

    /// Removes the sets of `keys` (their files are the caller's to remove, first).
    package func removeRenditionSets(_ keys: [String]) throws {
        guard !keys.isEmpty else { return }
        try database.write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM rendition_set WHERE key = ?")
            for key in keys { try delete.execute(arguments: [key]) }
        }
        markWritten()
    }
}
