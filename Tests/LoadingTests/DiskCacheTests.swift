import BuildStore
import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import Loading

@Suite struct DiskCacheTests {
    static func record(_ url: String, sha256: String, size: Int64) -> CacheRecord {
        CacheRecord(
            url: url, finalURL: url, status: 200, etag: #""v1""#, contentType: "image/jpeg", sha256: sha256,
            size: size, blobModified: 0, responseTime: 1_763_800_001.5, fetchedAt: 1_763_800_001.25,
            validatedAt: 1_763_800_002, lastUsed: 1_763_803_600)
    }

    /// A cache written before the build store (its URL records in `index.json`, as gallerygen
    /// 0.1.0 wrote them) is taken over on the first open: the records move into the store, the
    /// file goes, and nothing is downloaded again.
    @Test func theRecordsOfAnIndexAreTakenOverOnce() throws {
        let folder = try TemporaryDirectory("legacy")
        let blob = Data("the photo".utf8)
        let sha = sha256Hex(of: blob)
        try folder.write(blob, to: "cache/v1/blobs/\(sha)")
        var kept = Self.record("https://example.com/a.jpg", sha256: sha, size: Int64(blob.count))
        kept.redirects = ["https://example.com/old-a.jpg"]
        let orphan = Self.record("https://example.com/gone.jpg", sha256: String(repeating: "ab", count: 32), size: 3)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let records = String(decoding: try encoder.encode([kept, orphan]), as: UTF8.self)
        try folder.write("{\"records\":\(records),\n\"version\":1}\n", to: "cache/v1/index.json")

        let cache = try DiskCache.open(directory: folder.file("cache"))
        #expect(cache.record(for: kept.url) == kept)
        #expect(cache.record(for: orphan.url) == nil, "its blob is not there")
        #expect(!FileManager.default.fileExists(atPath: folder.file("cache/v1/index.json").path))
        cache.close()
        let reopened = try DiskCache.open(directory: folder.file("cache"))
        #expect(reopened.record(for: kept.url) == kept)
        reopened.close()
    }

    /// A persist writes what changed, and only that: a cache opened and persisted with nothing
    /// changed leaves the store's file untouched.
    @Test func aPersistWithNothingChangedWritesNothing() async throws {
        let folder = try TemporaryDirectory("store-writes")
        let blob = Data("bytes".utf8)
        let sha = sha256Hex(of: blob)
        try folder.write(blob, to: "cache/v1/blobs/\(sha)")
        let cache = try DiskCache.open(directory: folder.file("cache"))
        cache.store(Self.record("https://example.com/a.jpg", sha256: sha, size: Int64(blob.count)))
        try await cache.persist()
        cache.close()
        let store = folder.file("cache/v1/store.sqlite")
        let before = try #require(FileStatus(store))
        let again = try DiskCache.open(directory: folder.file("cache"))
        #expect(again.recordCount == 1)
        try await again.persist()
        again.close()
        let after = try #require(FileStatus(store))
        #expect(before.modifiedNanoseconds == after.modifiedNanoseconds && before.size == after.size)
    }

    /// What a persist writes is what changed since the last: records set, set again, set back
    /// as they were, and removed, among others left alone; a blob discarded takes its records.
    @Test func aPersistWritesWhatChangedSinceTheLast() async throws {
        let folder = try TemporaryDirectory("store-changes")
        let blobs = ["one", "two"].map { Data($0.utf8) }
        for blob in blobs { try folder.write(blob, to: "cache/v1/blobs/\(sha256Hex(of: blob))") }
        func record(_ name: String, blob: Int) -> CacheRecord {
            Self.record(
                "https://example.com/\(name).jpg", sha256: sha256Hex(of: blobs[blob]), size: Int64(blobs[blob].count))
        }
        func stored() async throws -> [String: CacheRecord] {
            let cache = try DiskCache.open(directory: folder.file("cache"))
            defer { cache.close() }
            return Dictionary(uniqueKeysWithValues: try await cache.store.urlRecords().map { ($0.url, $0) })
        }
        let cache = try DiskCache.open(directory: folder.file("cache"))
        for name in ["kept", "revalidated", "replaced", "removed", "restored", "discarded", "twice"] {
            cache.store(record(name, blob: name == "discarded" ? 1 : 0))
        }
        try await cache.persist()
        var revalidated = record("revalidated", blob: 0)
        (revalidated.etag, revalidated.date, revalidated.validatedAt) = (#""v2""#, "Wed, 25 Nov 2026 08:00:00 GMT", 2e9)
        cache.store(revalidated)
        var replaced = record("replaced", blob: 1)
        replaced.contentType = "image/png"
        cache.store(replaced)
        cache.removeRecord(for: record("removed", blob: 0).url)
        var restored = record("restored", blob: 0)
        restored.lastUsed += 1
        cache.store(restored)
        cache.store(record("restored", blob: 0))
        cache.store(record("added", blob: 0))
        // Other columns, then a 304's: written whole.
        var twice = record("twice", blob: 0)
        twice.finalURL = "https://cdn.example.com/twice.jpg"
        cache.store(twice)
        twice.etag = #""v3""#
        cache.store(twice)
        cache.discardBlob(sha256Hex(of: blobs[1]))
        try await cache.persist()
        cache.close()

        let expected = [
            record("kept", blob: 0), revalidated, record("restored", blob: 0), record("added", blob: 0), twice,
        ]
        #expect(try await stored() == Dictionary(uniqueKeysWithValues: expected.map { ($0.url, $0) }))
    }

    /// Records that could not be written (another program holds the store locked past the wait)
    /// are written by the next persist, though no record changed in between: a failed write is
    /// not taken for one that happened (the build's end and `serve`'s shutdown persist again).
    @Test func recordsNotWrittenAreWrittenNextTime() async throws {
        let folder = try TemporaryDirectory("store-retry")
        let blob = Data("bytes".utf8)
        let sha = sha256Hex(of: blob)
        try folder.write(blob, to: "cache/v1/blobs/\(sha)")
        let cache = try DiskCache.open(directory: folder.file("cache"))
        cache.store(Self.record("https://example.com/a.jpg", sha256: sha, size: Int64(blob.count)))
        let holder = try SQLiteLockHolder(database: folder.file("cache/v1/store.sqlite"))
        await #expect(throws: LoadingError.self) { try await cache.persist() }
        holder.release()
        try await cache.persist()
        cache.close()
        let reopened = try DiskCache.open(directory: folder.file("cache"))
        #expect(reopened.record(for: "https://example.com/a.jpg") != nil)
        reopened.close()
    }
}
