import Foundation
import GRDB
import GalleryCore
import Rendering
import TestSupport
import Testing

@testable import BuildStore
@testable import GalleryBuild
@testable import Loading

@Suite struct BuildStoreTests {
    static let full = CacheRecord(
        url: "https://example.com/a.jpg?x=1", finalURL: "https://cdn.example.com/a.jpg",
        redirects: ["https://example.com/b.jpg", "https://example.com/c.jpg"], status: 200, etag: #"W/"abc\"d""#,
        lastModified: "Tue, 15 Nov 1994 12:45:26 GMT", date: "Tue, 15 Nov 1994 12:45:27 GMT", age: "12",
        cacheControl: "max-age=3600, public", expires: "0", vary: "Accept", contentType: "image/jpeg",
        sha256: String(repeating: "0f", count: 32), size: 12_345_678, blobModified: 1_763_800_000.123_456_7,
        responseTime: 1_763_800_001.5, fetchedAt: 1_763_800_001.25, validatedAt: 1_763_800_002,
        lastUsed: 1_763_803_600)

    static var bare: CacheRecord {
        var bare = full
        (bare.url, bare.redirects, bare.etag, bare.lastModified, bare.date, bare.age) = ("b", [], nil, nil, nil, nil)
        (bare.cacheControl, bare.expires, bare.vary, bare.contentType) = (nil, nil, nil, nil)
        return bare
    }

    func sorted(_ records: [CacheRecord]) -> [CacheRecord] { records.sorted { $0.url < $1.url } }

    /// A store.sqlite that is a link out of the cache (a pull request can commit one) is never
    /// written through: the link goes, the cache gets a store of its own, and the build says so.
    @Test func aStoreThatIsALinkIsReplacedWithAWord() async throws {
        let folder = try TemporaryDirectory("store-link")
        let outside = folder.file("outside.txt")
        try Data("not the cache's".utf8).write(to: outside)
        let file = folder.file("cache/store.sqlite")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: outside)

        let opening = BuildStore.open(at: file)

        #expect(opening.store.file == file)
        #expect(opening.problem?.contains("store.sqlite was a symbolic link, never written through") == true)
        #expect(try String(contentsOf: outside, encoding: .utf8) == "not the cache's")
        let type = try FileManager.default.attributesOfItem(atPath: file.path)[.type] as? FileAttributeType
        #expect(type == .typeRegular)
        #expect(BuildStore.open(at: file).problem == nil, "the next build finds its own store")
    }

    @Test func recordsReadBackWholeWithEveryValueAndWithNone() async throws {
        let folder = try TemporaryDirectory("store")
        let file = folder.file("store.sqlite")
        let opening = BuildStore.open(at: file)
        #expect(opening.problem == nil)
        try await opening.store.save(urlRecords: [Self.full, Self.bare], removing: [])
        opening.store.close()
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"), "checkpointed into one file")

        let again = BuildStore.open(at: file)
        #expect(again.problem == nil)
        #expect(sorted(try await again.store.urlRecords()) == sorted([Self.full, Self.bare]))
        // Only what changed is written; what went is removed.
        var changed = Self.full
        changed.etag = #""new""#
        try await again.store.save(urlRecords: [changed], removing: ["b"])
        #expect(try await again.store.urlRecords() == [changed])
        try await again.store.save(urlRecords: [Self.bare], removing: [], replacingAll: true)
        #expect(try await again.store.urlRecords() == [Self.bare])
        again.store.close()
    }

    @Test func recordsWrittenFromTheCachesDictionaryKeepEveryByteAndOnlyChangedOnesAreWrittenWholeOrAsA304Updates()
        async throws
    {
        let folder = try TemporaryDirectory("store")
        let opening = BuildStore.open(at: folder.file("store.sqlite"))
        var odd = Self.full
        // Bound by their UTF-8 length, not their count of characters.
        (odd.url, odd.etag, odd.contentType) = ("https://example.com/été/🌅.jpg", "\"ü-\\\"-é\"", "")
        let records = Dictionary(uniqueKeysWithValues: [Self.full, Self.bare, odd].map { ($0.url, $0) })
        try await opening.store.save(urlRecords: records, changedSince: nil, removing: [])
        #expect(sorted(try await opening.store.urlRecords()) == sorted(Array(records.values)))
        // Against what was written: the ones that changed are written, the one that went removed.
        // `odd` took a 304 (only the columns it updates, some of them emptied); `full` new bytes.
        var changed = records
        var revalidated = odd
        (revalidated.validatedAt, revalidated.responseTime, revalidated.lastUsed) = (2e9, 2e9 - 1, 2e9 + 1)
        (revalidated.etag, revalidated.lastModified) = (#""next""#, nil)
        (revalidated.date, revalidated.age) = ("Wed, 16 Nov 1994 08:00:00 GMT", nil)
        (revalidated.cacheControl, revalidated.expires) = ("no-cache", "Thu, 17 Nov 1994 08:00:00 GMT")
        changed[odd.url] = revalidated
        var newBytes = Self.full
        (newBytes.sha256, newBytes.size) = (String(repeating: "a1", count: 32), 7)
        changed[Self.full.url] = newBytes
        changed[Self.bare.url] = nil
        #expect(records[odd.url]?.withRevalidation(of: changed[odd.url]!) == changed[odd.url])
        #expect(records[Self.full.url]?.withRevalidation(of: changed[Self.full.url]!) != changed[Self.full.url])
        try await opening.store.save(urlRecords: changed, changedSince: records, removing: [Self.bare.url])
        #expect(sorted(try await opening.store.urlRecords()) == sorted(Array(changed.values)))
        opening.store.close()
    }

    @Test func aValueSQLiteRefusesIsAnErrorAndTheStatementServesTheNextRow() async throws {
        let database = try DatabaseQueue()
        try await database.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT NOT NULL, b INTEGER, c REAL)")
            let insert = try db.makeStatement(sql: "INSERT INTO t (a, b, c) VALUES (?, ?, ?)")
            #expect {
                try insert.execute(binding: [.text(nil), .integer(1), .real(0.5)])
            } throws: { error in
                (error as? DatabaseError)?.message?.contains("NOT NULL") == true
            }
            try insert.execute(binding: [.text("x"), .integer(2), .real(1.5)])
            let row = try Row.fetchOne(db, sql: "SELECT a, b, c FROM t")
            #expect(row == ["a": "x", "b": 2, "c": 1.5])
        }
    }

    @Test func renderedPagesReadBackWithTheirFolderAndSources() async throws {
        let folder = try TemporaryDirectory("store")
        let file = folder.file("store.sqlite")
        let store = BuildStore.open(at: file).store
        #expect(try await store.renderedPages() == nil)
        // Words with the top bit set go through SQLite's signed integers and back.
        let sources = PageFingerprint(words: (.max, 1, 0x8000_0000_0000_0000, 42))
        func record(_ seed: UInt64) -> PageRecord {
            PageRecord(
                fingerprint: PageFingerprint(words: (seed, ~seed, seed << 60, 7)),
                stamp: FileStamp(
                    size: Int64(seed) * 100, modified: 1_763_800_000_123_456_789 + Int64(seed), inode: .max - seed))
        }
        let pages = ["index.html": record(1), "photos/a b é.html": record(2), "thumbs/x.avif": record(3)]
        try await store.saveRenderedPages(
            output: "/site/public", sources: sources, changed: pages.map { ($0.key, $0.value) }, removed: [],
            replacingAll: true)
        store.close()

        let again = BuildStore.open(at: file).store
        let stored = try await #require(try again.renderedPages())
        #expect(stored.output == "/site/public" && stored.sources == sources)
        #expect(stored.pages == pages)
        // Only what changed is written; what went is removed; another folder replaces all.
        try await again.saveRenderedPages(
            output: "/site/public", sources: sources, changed: [("index.html", record(9))],
            removed: ["thumbs/x.avif"], replacingAll: false)
        #expect(try await again.renderedPages()?.pages == ["index.html": record(9), "photos/a b é.html": record(2)])
        try await again.saveRenderedPages(
            output: "/elsewhere", sources: sources, changed: [("a.html", record(4))], removed: [], replacingAll: true)
        #expect(try await again.renderedPages()?.pages == ["a.html": record(4)])
        #expect(try await again.renderedPages()?.output == "/elsewhere")
        again.close()
    }

    /// A store an earlier gallerygen wrote (the schema's first version) is upgraded in place on
    /// opening: its records kept, the later tables added, no problem said.
    @Test func whatABuildVouchesForReadsBackUntilItIsTakenBackOrTheListChanges() async throws {
        let folder = try TemporaryDirectory("store")
        let file = folder.file("store.sqlite")
        let store = BuildStore.open(at: file).store
        let published = PublishedFiles(
            output: "/site/public", manifest: FileStamp(size: 1_234, modified: -5, inode: .max),
            files: ["a.html", "images/b.webp"])
        // Sizes, times and inodes at their extremes go through the blob and back.
        let record = UpToDateRecord(
            inputs: String(repeating: "ab", count: 32), freshUntil: 1_763_800_000.5, photos: 2, urls: 1, pages: 3,
            files: [
                FileStamp(size: 0, modified: .min, inode: 0),
                FileStamp(size: .max, modified: 1_763_800_000_123_456_789, inode: .max),
            ],
            local: ["/site/photos", "/site/photos/a line\nbreak.jpg", "/site/photos/é.jpg"].enumerated().map {
                SourceInput(
                    path: $1, stamp: SourceStamp(size: Int64($0), modified: .min, changed: .max, inode: .max - 1))
            })
        #expect(EveryColumnTests.unset(in: published) == [] && EveryColumnTests.unset(in: record) == [])
        try await store.saveUpToDate(record, for: published)
        #expect(try await store.upToDate() == nil, "no list: nothing to vouch for")
        try await store.savePublishedFiles(published, replacing: nil)
        #expect(try await store.upToDate() == nil, "a list alone vouches for nothing")
        try await store.saveUpToDate(record, for: published)
        let read = try #require(try await BuildStore.open(at: file).store.upToDate())
        #expect(read.0 == published && read.1 == record)

        try await store.forgetUpToDate()
        #expect(try await store.upToDate() == nil)
        #expect(try await store.publishedFiles() == published, "the list stays")

        // A new list replaces the row whole: the old record does not carry over to it.
        try await store.saveUpToDate(record, for: published)
        var changed = published
        changed.files.append("c.html")
        changed.manifest.size += 7
        try await store.savePublishedFiles(changed, replacing: published)
        #expect(try await store.upToDate() == nil)
        // Nor is a record kept for a list the store does not hold (one that failed to be saved),
        // or one whose stamps do not match the list.
        try await store.saveUpToDate(record, for: published)
        #expect(try await store.upToDate() == nil)
        try await store.saveUpToDate(record, for: changed)
        #expect(try await store.upToDate() == nil)
    }

    @Test func aStoreOfAnEarlierVersionIsUpgradedWithItsRecords() async throws {
        let folder = try TemporaryDirectory("store")
        let file = folder.file("store.sqlite")
        do {
            let database = try DatabaseQueue(path: file.path)
            try await database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try BuildCache.schema.migrator.migrate(database, upTo: "v1: URL records")
            try await database.write { db in
                // v1's columns: all but `link` (v8), the last.
                let columns = URLRecordTable.Column.allCases.dropLast().map(\.name)
                try db.execute(
                    sql: "INSERT INTO url_record (\(columns.joined(separator: ", "))) VALUES ("
                        + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")",
                    arguments: StatementArguments(Self.full.columnValues.dropLast().map(\.databaseValue)))
            }
            #expect(try await database.read { db in try db.tableExists("rendition_set") } == false)
            try database.close()
        }
        let opening = BuildStore.open(at: file)
        #expect(opening.problem == nil)
        #expect(try await opening.store.urlRecords() == [Self.full])
        #expect(try await opening.store.renderedPages() == nil)
        #expect(try await opening.store.renditionSetSummaries().isEmpty)
        opening.store.close()
        #expect(!FileManager.default.fileExists(atPath: file.path + "-wal"), "checkpointed into one file")
    }

    /// What a set's photo says is kept with the set; a record that has not read it (a set
    /// rewritten for its files' stamps) leaves it as it was, and `saveMetadata` fills it in.
    @Test func whatThePhotoSaysIsKeptWhenASetIsRewrittenWithoutIt() async throws {
        let store = BuildStore.inMemory()
        let said = PhotoMetadata(
            title: "T", description: "D\nE", alt: "A", keywords: ["k1", "k2"],
            taken: CaptureTime(local: "2024-05-01T14:32:10", offset: "+02:00"), rating: 4, creator: "C", rights: "R",
            licence: "https://example.org/l")
        var record = RenditionSetRecord(
            image: ProcessedImage(
                width: 4, height: 3,
                renditions: [Rendition(format: .webp, width: 4, height: 3, path: "a-4.webp", byteCount: 1)],
                placeholder: Placeholder(color: "#000000", dataURI: "data:,"), metadata: said),
            stamps: [nil], lastUsed: 1)
        try await store.saveRenditionSets([("k", record)])
        #expect(try await store.renditionSet(key: "k")?.image.metadata == said)
        record.image.metadata = nil
        record.lastUsed = 2
        try await store.saveRenditionSets([("k", record)])
        let kept = try await store.renditionSet(key: "k")
        #expect(kept?.image.metadata == said && kept?.lastUsed == 2)
        // A set that says nothing is read as such, not as unread.
        try await store.saveMetadata([("k", PhotoMetadata())])
        #expect(try await store.renditionSet(key: "k")?.image.metadata == PhotoMetadata())
        try await store.saveRenditionSets([("new", record)])
        #expect(try await store.renditionSet(key: "new")?.image.metadata == nil)
    }

    @Test func renditionSetsReadBackWholeAndGoWithTheirFiles() async throws {
        let store = BuildStore.inMemory()
        let image = ProcessedImage(
            width: 4000, height: 3000,
            renditions: [
                Rendition(
                    format: .avif, width: 480, height: 360, path: "images/a-480.avif", byteCount: 1234, sha256: "ab"),
                Rendition(format: .webp, width: 960, height: 720, path: "images/a-960.webp", byteCount: 5678),
            ],
            placeholder: Placeholder(color: "#102030", dataURI: "data:image/webp;base64,AAAA"), hasTransparency: true,
            camera: CameraDetails(camera: "Canon EOS R5", iso: "ISO 400", taken: "2024-05-01 14:32"))
        let record = RenditionSetRecord(
            image: image, stamps: [FileStamp(size: 1234, modified: 1_763_800_000_123_456_789, inode: .max), nil],
            lastUsed: 1_763_800_000.5)
        try await store.saveRenditionSets([("k1", record)])
        #expect(try await store.renditionSet(key: "k1") == record)
        #expect(try await store.renditionSet(key: "k2") == nil)
        var bare = record
        bare.image.camera = nil
        bare.image.renditions.removeLast()
        bare.stamps = [nil]
        try await store.saveRenditionSets([("k1", bare), ("k2", record)])
        #expect(try await store.renditionSet(key: "k1") == bare, "a set replaced keeps none of its old files")
        try await store.touchRenditionSets(["k2"], at: 1_800_000_000)
        let summaries = try await store.renditionSetSummaries().sorted { $0.key < $1.key }
        #expect(summaries.map(\.key) == ["k1", "k2"])
        #expect(summaries[1].fileNames == ["a-480.avif", "a-960.webp"] && summaries[1].bytes == 1234 + 5678)
        #expect(summaries[1].lastUsed == 1_800_000_000)
        try await store.removeRenditionSets(["k1"])
        #expect(try await store.renditionSet(key: "k1") == nil)
        #expect(
            try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM rendition") } == 2)
        // Many at once, in one read (and more than one statement's worth of keys): those the
        // store has, and no others.
        let many = (0..<10_500).map { ("m\($0)", record) }
        try await store.saveRenditionSets(many)
        let found = try await store.renditionSets(keys: ["k2", "absent"] + many.map(\.0))
        #expect(found.count == 10_501 && found["k2"]?.image == record.image && found["absent"] == nil)
        #expect(found["m0"] == record && found["m10499"] == record)
    }

    /// A file that is not a database, one cut short, one from a newer gallerygen: each is said in
    /// a sentence, and the build gets a store that works; one locked by another program is read,
    /// and written once the lock is gone.
    @Test func aStoreThatCannotBeUsedIsSaidAndMadeAnew() async throws {
        let folder = try TemporaryDirectory("store")
        func made(_ name: String) async throws -> URL {
            let file = folder.file(name)
            let opening = BuildStore.open(at: file)
            try await opening.store.save(
                urlRecords: (0..<2_000).map { number in
                    var record = Self.full
                    record.url = "https://example.com/\(number).jpg"
                    return record
                }, removing: [])
            opening.store.close()
            return file
        }

        let garbage = folder.file("garbage.sqlite")
        try Data(repeating: 0x41, count: 10_000).write(to: garbage)
        let fromGarbage = BuildStore.open(at: garbage)
        #expect(fromGarbage.problem?.contains("not a gallerygen store") == true, "\(fromGarbage.problem ?? "")")
        #expect(try await fromGarbage.store.urlRecords().isEmpty)
        try await fromGarbage.store.save(urlRecords: [Self.bare], removing: [])
        #expect(fromGarbage.store.file == garbage, "made anew in its place")
        fromGarbage.store.close()
        #expect(BuildStore.open(at: garbage).problem == nil)

        let cut = try await made("cut.sqlite")
        let data = try Data(contentsOf: cut)
        try data.prefix(data.count / 2).write(to: cut)
        let fromCut = BuildStore.open(at: cut)
        #expect(fromCut.problem?.contains("made anew") == true, "\(fromCut.problem ?? "")")
        #expect(try await fromCut.store.urlRecords().isEmpty, "never trusted in part")
        fromCut.store.close()

        let newer = try await made("newer.sqlite")
        let queue = try DatabaseQueue(path: newer.path)
        try await queue.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99: from the future')")
        }
        try queue.close()
        let fromNewer = BuildStore.open(at: newer)
        #expect(fromNewer.problem?.contains("made by a newer gallerygen") == true, "\(fromNewer.problem ?? "")")
        #expect(try await fromNewer.store.urlRecords().isEmpty)
        fromNewer.store.close()

        // Locked by another program: read as it is (WAL lets readers in), and a write waits a
        // moment, then fails with the reason (the build reports it and keeps its site).
        let locked = try await made("locked.sqlite")
        let holder = try SQLiteLockHolder(database: locked)
        let fromLocked = BuildStore.open(at: locked)
        #expect(fromLocked.problem == nil)
        #expect(try await fromLocked.store.urlRecords().count == 2_000)
        let refused = await #expect(throws: DatabaseError.self) {
            try await fromLocked.store.save(urlRecords: [Self.bare], removing: [])
        }
        #expect(refused?.resultCode == .SQLITE_BUSY)
        holder.release()
        try await fromLocked.store.save(urlRecords: [Self.bare], removing: [])
        fromLocked.store.close()
        #expect(try await BuildStore.open(at: locked).store.urlRecords().count == 2_001)
    }
}
