package import BuildStore
package import Foundation
import GRDB
package import GalleryCore
import Synchronization

/// The loader's table of the site's own files' hashes: a row per photo read from disk (a folder
/// feed's, or a feed file's local one), with the stamp the file had when it was hashed.
package enum LocalFileTable: StoreTable {
    package static let migrations = [
        StoreMigration(10, "local file digests") { db in
            try db.create(table: "local_file", options: [.withoutRowID]) { table in
                table.primaryKey("path", .text)
                for name in ["size", "modified", "changed", "inode"] {
                    table.column(name, .integer).notNull()
                }
                table.column("sha256", .text).notNull()
            }
        }
    ]

    enum Column: Int, TableColumn {
        case path, size, modified, changed, inode, sha256
    }
}

/// What the build knows of the site's own photo files: the SHA-256 of each, as long as the file
/// keeps the stamp (``SourceStamp``) it had when it was hashed. A rebuild of a folder of 100,000
/// photos stats each one instead of reading it (docs/guarantees.md, "What a rebuild trusts").
///
/// Read from the store once a build (``read()``), looked up without a wait, and written back
/// where it changed (``persist(pruning:)``). A stamp taken within ``SourceStamp/settleNanoseconds``
/// of a write is not kept: the file is hashed again next time.
package final class LocalDigests: Sendable {
    package struct Entry: Sendable, Equatable {
        package var stamp: SourceStamp
        package var sha256: String
    }

    private let store: BuildStore
    private let state = Mutex(State())
    private let reading = Mutex<Task<Void, Never>?>(nil)

    private struct State {
        var isLoaded = false
        var entries: [String: Entry] = [:]
        /// The entry the store holds (nil: none) of each path this build read, which may have
        /// changed it: only these rows can need writing (a copy of all 100,000 entries kept for
        /// the comparison doubled them).
        var before: [String: Entry?] = [:]
        /// Each file this build looked up or hashed, with its stamp then; nil once one was seen
        /// with two stamps (it changed while the build ran).
        var seen: [String: SourceStamp]? = [:]

        mutating func see(_ path: String, _ stamp: SourceStamp) {
            guard seen != nil else { return }
            if let earlier = seen?.updateValue(stamp, forKey: path), earlier != stamp { seen = nil }
        }
    }

    package init(store: BuildStore) {
        self.store = store
    }

    /// Reads the rows, once, off any lock.
    package func read() async {
        let task = reading.withLock { reading in
            if let reading { return reading }
            let task = Task { [store] in
                let entries = (try? await store.read { db in try Self.entries(in: db) }) ?? [:]
                self.install(entries)
            }
            reading = task
            return task
        }
        await task.value
    }

    private func install(_ entries: [String: Entry]) {
        state.withLock { state in
            guard !state.isLoaded else { return }
            (state.entries, state.isLoaded) = (entries, true)
        }
    }

    private static func entries(in db: Database) throws -> [String: Entry] {
        var entries: [String: Entry] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT \(LocalFileTable.Column.list) FROM local_file")
        while let row = try rows.next() {
            typealias Column = LocalFileTable.Column
            let stamp = SourceStamp(
                size: row[Column.size], modified: row[Column.modified], changed: row[Column.changed],
                inode: UInt64(bitPattern: row[Column.inode]))
            entries[row[Column.path]] = Entry(stamp: stamp, sha256: row[Column.sha256])
        }
        return entries
    }

    /// The hash of the file at `path` when it still has `stamp`; nil when it was never hashed,
    /// or has changed since. Rows not read yet (``read()``) count as none.
    package func sha256(of path: String, stamp: SourceStamp) -> String? {
        state.withLock { state in
            state.see(path, stamp)
            guard let entry = state.entries[path], entry.stamp == stamp else { return nil }
            return entry.sha256
        }
    }

    /// Keeps the hash of the file at `path`, read while it had `stamp` (taken at `now`), unless
    /// the stamp is too fresh to trust.
    package func note(_ sha256: String, of path: String, stamp: SourceStamp, at now: Date) {
        state.withLock { state in
            state.see(path, stamp)
            if state.before.index(forKey: path) == nil { state.before.updateValue(state.entries[path], forKey: path) }
            if stamp.isSettled(at: now) {
                state.entries[path] = Entry(stamp: stamp, sha256: sha256)
            } else {
                state.entries[path] = nil
            }
        }
    }

    /// The files this build read or looked up, each with the stamp it had before it was read;
    /// nil when one changed while the build ran (then the build vouches for nothing).
    package var inputs: [SourceInput]? {
        state.withLock { state in state.seen.map { seen in seen.map { SourceInput(path: $0.key, stamp: $0.value) } } }
    }

    /// Writes the rows that changed; with `pruning` (a build that read the whole feed), the rows
    /// of files this build did not read or look up go. Then the next build starts from the store again.
    package func persist(pruning: Bool) async throws {
        let (changed, removed) = state.withLock { state in
            guard state.isLoaded else { return ([(String, Entry)](), [String]()) }
            // Only what this build read can differ from the store (a rebuild reads a few files).
            var changed: [(String, Entry)] = []
            var removed: [String] = []
            for (path, stored) in state.before where state.entries[path] != stored {
                if let entry = state.entries[path] {
                    changed.append((path, entry))
                } else {
                    removed.append(path)
                }
            }
            changed.sort { $0.0 < $1.0 }
            // A build that saw a file change under it prunes nothing: it does not know all it read.
            if pruning, let seen = state.seen { removed += state.entries.keys.filter { seen[$0] == nil } }
            state.isLoaded = false
            state.entries = [:]
            state.before = [:]
            state.seen = [:]
            return (changed, removed.sorted())
        }
        reading.withLock { $0 = nil }
        guard !changed.isEmpty || !removed.isEmpty else { return }
        try await store.write { db in
            typealias Column = LocalFileTable.Column
            let upsert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO local_file (\(Column.list)) VALUES (\(Column.placeholders))")
            for (path, entry) in changed {
                try upsert.execute(binding: [
                    .text(path), .integer(entry.stamp.size), .integer(entry.stamp.modified),
                    .integer(entry.stamp.changed), .integer(Int64(bitPattern: entry.stamp.inode)),
                    .text(entry.sha256),
                ])
            }
            let delete = try db.cachedStatement(sql: "DELETE FROM local_file WHERE path = ?")
            for path in removed { try delete.execute(arguments: [path]) }
        }
    }
}
