import Foundation
import GalleryCore
import TestSupport
import Testing

@testable import GalleryBuild

/// Zips checked by other readers: Python's zipfile (CRC and sizes of every entry) and Info-ZIP's
/// `unzip -t`, in the plain format and in Zip64's.
@Suite struct ZipArchiveTests {
    @Test func crc32IsZipsOwn() {
        var crc = CRC32()
        crc.update(Data("123456789".utf8))
        #expect(crc.value == 0xCBF4_3926)
        var split = CRC32()
        split.update(Data("1234".utf8))
        split.update(Data("56789".utf8))
        #expect(split.value == crc.value)
        #expect(CRC32().value == 0)
    }

    func files(in folder: TemporaryDirectory) throws -> [ZipArchive.Entry] {
        var entries: [ZipArchive.Entry] = []
        // Sizes across the 8-byte steps of the CRC, one empty, one over a read block.
        for (index, size) in [0, 1, 7, 8, 9, 4099, (1 << 20) + 13].enumerated() {
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            let name = "photo-\(index).jpg"
            try folder.write(Data(bytes), to: name)
            entries.append(
                ZipArchive.Entry(name: "Album/Ünïcode \(index).jpg", file: folder.file(name), byteCount: Int64(size)))
        }
        return entries
    }

    @Test(arguments: [Int64(0xFFFF_FFFF), 1])
    func otherReadersReadEveryEntry(zip64Threshold: Int64) async throws {
        let folder = try TemporaryDirectory()
        let entries = try files(in: folder)
        let archive = ZipArchive(entries: entries, zip64Threshold: zip64Threshold)
        let zip = folder.file("album.zip")
        try archive.write(to: zip)
        let size = try #require(FileStatus(zip)?.size)
        #expect(size == archive.byteCount, "the size said before it was written")
        let check = try await CommandRun.running(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                "-c",
                """
                import sys, zipfile, zlib
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                for info in z.infolist():
                    assert info.compress_type == zipfile.ZIP_STORED, info
                    assert info.date_time == (1980, 1, 1, 0, 0, 0), info
                    print(info.filename, info.file_size, zlib.crc32(z.read(info)))
                """,
                zip.path,
            ])
        #expect(check.status == 0, "\(check.standardError)")
        let expected = try entries.map { entry in
            let data = try Data(contentsOf: entry.file)
            var crc = CRC32()
            crc.update(data)
            return "\(entry.name) \(entry.byteCount) \(crc.value)"
        }
        #expect(check.standardOutput.split(separator: "\n").map(String.init) == expected)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/unzip") {
            let unzip = try await CommandRun.running(URL(fileURLWithPath: "/usr/bin/unzip"), ["-tq", zip.path])
            #expect(unzip.status == 0, "\(unzip.standardOutput)\(unzip.standardError)")
        }
    }

    @Test func theSameEntriesGiveTheSameBytes() throws {
        let folder = try TemporaryDirectory()
        let entries = try files(in: folder)
        try ZipArchive(entries: entries).write(to: folder.file("a.zip"))
        // Other times on the files: nothing of them goes in.
        for entry in entries {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: entry.file.path)
        }
        try ZipArchive(entries: entries).write(to: folder.file("b.zip"))
        #expect(try Data(contentsOf: folder.file("a.zip")) == Data(contentsOf: folder.file("b.zip")))
    }

    @Test func aFileThatChangedSizeIsAnError() throws {
        let folder = try TemporaryDirectory()
        var entries = try files(in: folder)
        entries[3].byteCount += 1
        #expect(throws: (any Error).self) { try ZipArchive(entries: entries).write(to: folder.file("c.zip")) }
    }

    /// A hostile album name (70,000 combining marks, a hundred CJK characters, a path 10,000
    /// folders deep) gives a name every file system and the format take.
    @Test func longNamesAreCutToWhatFileSystemsTake() throws {
        let marks = ZipArchive.entryName(["P", "e" + String(repeating: "\u{301}", count: 70_000), "a.jpg"])
        #expect(marks.utf8.count <= 1024)
        let cjk = ZipArchive.entryName([String(repeating: "写", count: 100), "a.jpg"])
        #expect(cjk.split(separator: "/").allSatisfy { $0.utf8.count <= 200 } && cjk.hasSuffix("/a.jpg"))
        let deep = ZipArchive.entryName(Array(repeating: "folder", count: 10_000) + ["a.jpg"])
        #expect(deep.utf8.count <= 1024 && deep.hasSuffix("folder/a.jpg"))
        #expect(ZipArchive.entryName(["Trip. ", "b.jpg"]) == "Trip/b.jpg", "no trailing dot or space")
        let folder = try TemporaryDirectory()
        try folder.write(Data([1, 2, 3]), to: "a.jpg")
        try ZipArchive(entries: [ZipArchive.Entry(name: marks, file: folder.file("a.jpg"), byteCount: 3)])
            .write(to: folder.file("a.zip"))
    }

    @Test(arguments: [
        // A part is one folder or file: the slashes inside one are not the archive's.
        (["../../etc", "passwd"], "-..-etc/passwd"), (["/abs", "a:b\\c.jpg"], "-abs/a-b-c.jpg"), (["..", "x"], "x"),
        ([".hidden", "x\u{7}.jpg"], "hidden/x-.jpg"), (["", "  "], ""),
    ])
    func entryNamesStayInside(parts: [String], expected: String) {
        let name = ZipArchive.entryName(parts)
        #expect(name == expected)
        #expect(!name.hasPrefix("/") && !name.split(separator: "/").contains(".."))
    }
}
