import Foundation
import TestSupport
import Testing

@testable import Loading

@Suite struct DiskCacheTests {
    /// The index is written with JSONEncoder and read by hand: a record must read back whole,
    /// with every header set and with none.
    @Test func indexReadsBackWhatItWrote() throws {
        let full = CacheRecord(
            url: "https://example.com/a.jpg?x=1", finalURL: "https://cdn.example.com/a.jpg",
            redirects: ["https://example.com/b.jpg"], status: 200, etag: #"W/"abc\"d""#,
            lastModified: "Tue, 15 Nov 1994 12:45:26 GMT", date: "Tue, 15 Nov 1994 12:45:27 GMT", age: "12",
            cacheControl: "max-age=3600, public", expires: "0", vary: "Accept", contentType: "image/jpeg",
            sha256: String(repeating: "0f", count: 32), size: 12_345_678, blobModified: 1_763_800_000.123_456_7,
            responseTime: 1_763_800_001.5, fetchedAt: 1_763_800_001.25, validatedAt: 1_763_800_002,
            lastUsed: 1_763_803_600)
        var bare = full
        (bare.url, bare.redirects, bare.etag, bare.lastModified, bare.date, bare.age) = ("b", [], nil, nil, nil, nil)
        (bare.cacheControl, bare.expires, bare.vary, bare.contentType) = (nil, nil, nil, nil)
        let index = DiskCache.IndexFile(records: [full, bare])
        let decoded = try DiskCache.IndexFile.decode(JSONEncoder().encode(index))
        #expect(decoded.version == 1)
        #expect(decoded.records == [full, bare])

        // As the cache writes it, a record per line, in parts of 4,096 records: read a line at a
        // time, the same records.
        let many = (0..<5_000).map { number in
            var record = number.isMultiple(of: 2) ? full : bare
            record.url = "https://example.com/\(number).jpg"
            return record
        }
        let lines = try encoded(many)
        #expect(DiskCache.IndexFile.decodeByLines(lines)?.records == many)
        #expect(try DiskCache.IndexFile.decode(lines).records == many)
        // A line that is not a record, or an index cut short: not read by lines; cut short, not
        // read at all (an unreadable index is an empty cache, never a part of one).
        var garbled = [UInt8](lines)
        let second = try #require(
            garbled.firstIndex(of: 0x0A).flatMap { first in garbled[(first + 1)...].firstIndex(of: 0x0A) })
        garbled[second + 3] = UInt8(ascii: "}")
        #expect(DiskCache.IndexFile.decodeByLines(Data(garbled)) == nil)
        #expect(throws: (any Error).self) { try DiskCache.IndexFile.decode(Data(garbled)) }
        let cut = lines.prefix(lines.count - 40)
        #expect(DiskCache.IndexFile.decodeByLines(Data(cut)) == nil)
        #expect(throws: (any Error).self) { try DiskCache.IndexFile.decode(Data(cut)) }
        #expect(DiskCache.IndexFile.decodeByLines(try encoded([])) == nil)
        #expect(try DiskCache.IndexFile.decode(try encoded([])).records.isEmpty)
    }

    /// An index that could not be written (a full disk, here a file where the cache's folder
    /// was) is written by the next persist, though no record changed in between: a failed write
    /// is not taken for one that happened (the build's end and `serve`'s shutdown persist again).
    @Test func anIndexNotWrittenIsWrittenNextTime() throws {
        let folder = try TemporaryDirectory("index-retry")
        let cache = try DiskCache(directory: folder.file("cache"))
        defer { cache.close() }
        cache.store(
            CacheRecord(
                url: "https://example.com/a.jpg", finalURL: "https://example.com/a.jpg", redirects: [], status: 200,
                etag: nil, lastModified: nil, date: nil, age: nil, cacheControl: nil, expires: nil, vary: nil,
                contentType: "image/jpeg", sha256: String(repeating: "0f", count: 32), size: 1, blobModified: 0,
                responseTime: 0, fetchedAt: 0, validatedAt: 0, lastUsed: 0))
        let index = cache.root.appendingPathComponent("index.json")
        let moved = folder.file("v1-moved")
        try FileManager.default.moveItem(at: cache.root, to: moved)
        try Data("in the way".utf8).write(to: cache.root)
        #expect(throws: LoadingError.self) { try cache.persist() }
        try FileManager.default.removeItem(at: cache.root)
        try FileManager.default.moveItem(at: moved, to: cache.root)
        try cache.persist()
        let written = try DiskCache.IndexFile.decode(Data(contentsOf: index))
        #expect(written.records.map(\.url) == ["https://example.com/a.jpg"])
    }

    /// The index's bytes as ``DiskCache/persist()`` writes them, a part at a time.
    private func encoded(_ records: [CacheRecord]) throws -> Data {
        var data = Data()
        try DiskCache.IndexFile.encode(
            count: records.count, record: { records[$0] }, into: { data.append(contentsOf: $0) })
        return data
    }
}
