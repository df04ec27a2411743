package import Foundation
package import GRDB
import Synchronization

/// What a build remembers between runs, in one SQLite database (`CACHE/v1/store.sqlite`). This
/// module is the database alone: opening it, its one migrator, its transactions and its
/// checkpoint. Each stage owns its tables (their record types, columns and migrations, given as a
/// ``StoreTable``): the loader's URL records (Loading's `URLRecordTable`), the thumbnail sets, the
/// rendered pages and the published file list (GalleryBuild's `Cache/` folder, whose `BuildCache`
/// opens the store for a build and hands it to the stages). Blobs and thumbnails stay files named
/// by their hash beside it.
///
/// A build reads the records it needs when it needs them and writes only the rows that changed,
/// each stage in its own transactions. The database runs in WAL mode while a build uses it and is
/// checkpointed into its one file when the build ends (``checkpoint()``), so the cache folder CI
/// keeps holds one consistent file.
///
/// The schema is versioned by GRDB's `DatabaseMigrator`, one migration per version whichever
/// stage's table it changes (``StoreSchema``). A store that cannot be used (damaged, cut short,
/// not a database, made by a newer gallerygen) is never trusted in part: ``open(at:schema:)``
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
    package static func open(at file: URL, schema: StoreSchema) -> Opening {
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
                    store: inMemory(schema: schema),
                    problem: "\(file.path): \(names) cannot be taken away (a symbolic link, never written through); "
                        + "this build's records are not kept")
            }
            var opening = open(at: file, schema: schema)
            let replaced =
                "\(file.path): \(names) \(found.count == 1 ? "was a symbolic link" : "were symbolic links"), never "
                + "written through; the cache now holds a store of its own (every photo is revalidated)"
            opening.problem = [replaced, opening.problem].compactMap { $0 }.joined(separator: "; ")
            return opening
        }
        do {
            return Opening(store: try BuildStore(opening: file, migrator: schema.migrator), problem: nil)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY || error.resultCode == .SQLITE_LOCKED
        {
            return Opening(
                store: inMemory(schema: schema),
                problem: "\(file.path): locked by another program (\(error.message ?? "busy")); this build's "
                    + "records are not kept")
        } catch {
            let reason = describe(error)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
            do {
                return Opening(
                    store: try BuildStore(opening: file, migrator: schema.migrator),
                    problem: "\(file.path): \(reason); it was made anew (every photo is revalidated, nothing else "
                        + "is lost)")
            } catch {
                return Opening(
                    store: inMemory(schema: schema),
                    problem: "\(file.path): \(reason), and a new one cannot be made (\(describe(error))); this "
                        + "build's records are not kept")
            }
        }
    }

    /// A store in memory: for a build that cannot keep one, and for tests.
    package static func inMemory(schema: StoreSchema) -> BuildStore {
        do {
            let database = try DatabaseQueue()
            try schema.migrator.migrate(database)
            return BuildStore(database: database, file: nil)
        } catch {
            // Nothing of the user's is read here: only a broken SQLite library fails this.
            preconditionFailure("SQLite cannot make a database in memory: \(error)")
        }
    }

    private convenience init(opening file: URL, migrator: DatabaseMigrator) throws {
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
            if try migrator.hasBeenSuperseded(db) { throw NewerStore() }
            return try migrator.hasCompletedMigrations(db)
        }
        // A store already at this version is not written to at all.
        if !current {
            try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try migrator.migrate(database)
        }
        try database.read { db in
            let result = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? ""
            if result != "ok" { throw DamagedStore(detail: result) }
        }
        self.init(database: database, file: file)
        if !current {
            markWritten()
            try checkpointNow()
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

    // MARK: Transactions

    /// Runs `body` in a read transaction, without holding a thread while it waits its turn.
    package func read<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        try await database.read(body)
    }

    /// Runs `body` in a write transaction, without holding a thread while it waits its turn; what
    /// it changed is folded into the file by the next ``checkpoint()`` (a write that changed no
    /// row leaves the file untouched).
    package func write<Value: Sendable>(_ body: @escaping @Sendable (Database) throws -> Value) async throws -> Value {
        let (value, changed) = try await database.write { db in try Self.noting(body, in: db) }
        if changed { markWritten() }
        return value
    }

    /// ``read(_:)`` for code that cannot wait: the opening of a cache, before any build runs.
    package func readNow<Value>(_ body: (Database) throws -> Value) throws -> Value {
        try database.read(body)
    }

    /// ``write(_:)`` for code that cannot wait: the opening of a cache, before any build runs.
    package func writeNow<Value>(_ body: (Database) throws -> Value) throws -> Value {
        let (value, changed) = try database.write { db in try Self.noting(body, in: db) }
        if changed { markWritten() }
        return value
    }

    /// `body`'s value, and whether it changed a row.
    private static func noting<Value>(_ body: (Database) throws -> Value, in db: Database) throws -> (Value, Bool) {
        let before = db.totalChangesCount
        let value = try body(db)
        return (value, db.totalChangesCount != before)
    }

    /// Notes that the log holds writes for the next ``checkpoint()``.
    private func markWritten() {
        hasUncheckpointedWrites.store(true, ordering: .relaxed)
    }

    /// Folds the write-ahead log into the database file, so the folder holds one consistent file:
    /// once a build, where its writes end (a checkpoint that fails loses nothing: the log stays,
    /// and is read with the file).
    package func checkpoint() async throws {
        guard needsCheckpoint else { return }
        try await database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        hasUncheckpointedWrites.store(false, ordering: .relaxed)
    }

    private func checkpointNow() throws {
        guard needsCheckpoint else { return }
        try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        hasUncheckpointedWrites.store(false, ordering: .relaxed)
    }

    /// A store on disk whose log holds writes.
    private var needsCheckpoint: Bool {
        file != nil && hasUncheckpointedWrites.load(ordering: .relaxed)
    }

    /// Closes the database (after a last checkpoint); nothing is read or written after this.
    package func close() {
        try? checkpointNow()
        try? database.close()
    }
}

/// One version of the store's schema: what it changes in one stage's table.
package struct StoreMigration: Sendable {
    /// Its place in the schema's history: every stage's migrations run in the order of their
    /// versions, one migrator for all.
    package var version: Int
    package var name: String
    package var migrate: @Sendable (Database) throws -> Void

    package init(_ version: Int, _ name: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
        self.version = version
        self.name = name
        self.migrate = migrate
    }

    /// The identifier GRDB records for it in a store.
    var identifier: String { "v\(version): \(name)" }
}

/// A table (or a few that go together) and the migrations that made it as it is, declared by the
/// stage whose records it keeps (GRDB's guidance: a record type is responsible for its table).
package protocol StoreTable {
    static var migrations: [StoreMigration] { get }
}

/// Every stage's tables, registered in one migrator in the order of their versions: a store whose
/// migrations this binary does not know was written by a newer gallerygen.
package struct StoreSchema: Sendable {
    package let migrator: DatabaseMigrator

    package init(_ tables: [any StoreTable.Type]) {
        let migrations = tables.flatMap { $0.migrations }.sorted { $0.version < $1.version }
        precondition(
            Set(migrations.map(\.version)).count == migrations.count, "one migration per version of the store")
        var migrator = DatabaseMigrator()
        for migration in migrations { migrator.registerMigration(migration.identifier, migrate: migration.migrate) }
        self.migrator = migrator
    }
}
