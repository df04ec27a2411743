import Foundation
import TestSupport
import Testing

@testable import GalleryCore

@Suite struct FileStatusTests {
    /// The cache stores a blob's modification time and compares it with the one seen later: both
    /// must agree with Foundation's, or every blob of an existing cache would be hashed again.
    @Test func agreesWithFileManagerOnSizeAndModificationTime() throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("gallerygen-status-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, size) in [0, 1, 4097].enumerated() {
            let file = folder.appendingPathComponent("f\(index)")
            try Data(repeating: 7, count: size).write(to: file)
            // A time with a fraction of a second, as file systems with nanosecond times keep.
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_700_000_000.123_456 + Double(index))],
                ofItemAtPath: file.path)
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            let status = try #require(FileStatus(file))
            #expect(status.size == Int64(size))
            #expect(status.modified == (attributes[.modificationDate] as? Date)?.timeIntervalSince1970)
            #expect(status.isRegularFile)
        }
        #expect(FileStatus(folder)?.isRegularFile == false)
        #expect(FileStatus(folder.appendingPathComponent("missing")) == nil)
    }
}

@Suite struct PlainFileTests {
    @Test(.timeLimit(.minutes(1))) func aPipeIsRefusedWithoutBlocking() throws {
        let folder = try TemporaryDirectory("plain")
        let pipe = folder.file("feed.json")
        #expect(mkfifo(pipe.path, 0o644) == 0)
        let failure = #expect(throws: PlainFile.Failure.self) { try PlainFile.read(pipe) }
        #expect(failure?.kind == .notPlain)
        let missing = #expect(throws: PlainFile.Failure.self) { try PlainFile.read(folder.file("none")) }
        #expect(missing?.kind == .missing)
        let folderFailure = #expect(throws: PlainFile.Failure.self) { try PlainFile.read(folder.url) }
        #expect(folderFailure?.kind == .notPlain)
    }

    @Test func aFileOverItsLimitIsRefused() throws {
        let folder = try TemporaryDirectory("plain")
        let file = try folder.write(String(repeating: "x", count: 100), to: "a.txt")
        #expect(try PlainFile.read(file, limit: 100).count == 100)
        let failure = #expect(throws: PlainFile.Failure.self) { try PlainFile.read(file, limit: 99) }
        #expect(failure?.kind == .tooLarge(limit: 99))
    }
}
