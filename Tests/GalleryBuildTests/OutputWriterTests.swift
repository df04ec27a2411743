import Foundation
import GalleryCore
import GalleryJSON
import TestSupport
import Testing

@testable import GalleryBuild

/// A write that fails part way (a full disk) leaves the previous site as it was (issue 10, case 3).
@Suite struct OutputWriterTests {
    struct DiskFull: Error {}

    /// A previous site (one page, one image, its manifest) and the files of the next build: a
    /// changed page naming a new image.
    func previousSiteAndNextFiles() async throws -> (TemporaryDirectory, URL, [OutputFile], Manifest, Manifest) {
        let folder = try TemporaryDirectory("writer")
        let output = folder.file("public")
        let oldImage = folder.file("cache/old.webp")
        let newImage = folder.file("cache/new.webp")
        try folder.write("old image", to: "cache/old.webp")
        try folder.write("new image", to: "cache/new.webp")
        let writer = OutputWriter(directory: output)
        let first = [
            OutputFile(path: "index.html", content: .bytes(Array("<img src=images/old.webp>".utf8))),
            OutputFile(path: "images/old.webp", content: .copy(of: oldImage, size: 9)),
        ]
        let firstManifest = Manifest(photos: [], files: first.map(\.path).sorted())
        _ = try await writer.write(first, manifest: firstManifest, previous: nil)
        let next = [
            OutputFile(path: "index.html", content: .bytes(Array("<img src=images/new.webp>".utf8))),
            OutputFile(path: "album-a.html", content: .bytes(Array("<img src=images/new.webp>".utf8))),
            OutputFile(path: "images/new.webp", content: .copy(of: newImage, size: 9)),
        ]
        return (folder, output, next, firstManifest, Manifest(photos: [], files: next.map(\.path).sorted()))
    }

    @Test(arguments: ["images/new.webp", "index.html", "album-a.html", Manifest.fileName])
    func aFailureBeforeThePagesAreSwitchedLeavesThePreviousSite(failingAt failing: String) async throws {
        let (folder, output, next, firstManifest, nextManifest) = try await previousSiteAndNextFiles()
        let before = folder.allFiles(under: "public").map {
            ($0, try? Data(contentsOf: output.appendingPathComponent($0)))
        }
        let writer = OutputWriter(directory: output) { path in
            if path == failing { throw DiskFull() }
        }

        await #expect(throws: DiskFull.self) {
            try await writer.write(next, manifest: nextManifest, previous: firstManifest.files)
        }

        let after = folder.allFiles(under: "public").map {
            ($0, try? Data(contentsOf: output.appendingPathComponent($0)))
        }
        #expect(after.map(\.0) == before.map(\.0), "no file added or removed, no temporary file left")
        #expect(after.map(\.1) == before.map(\.1), "no file changed")
    }

    @Test func pagesAreWrittenAfterTheImagesTheyNameAndTheManifestLast() async throws {
        let (folder, output, next, firstManifest, nextManifest) = try await previousSiteAndNextFiles()
        defer { withExtendedLifetime(folder) {} }
        let order = Locked<[String]>([])
        let writer = OutputWriter(directory: output) { path in order.update { $0?.append(path) } }

        _ = try await writer.write(next, manifest: nextManifest, previous: firstManifest.files)

        #expect(order.value == ["images/new.webp", "index.html", "album-a.html", Manifest.fileName])
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("images/old.webp").path))
        #expect(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8).contains("new"))
    }

    @Test func aWriteAfterAKilledOneSweepsWhatItStaged() async throws {
        let (folder, output, next, firstManifest, nextManifest) = try await previousSiteAndNextFiles()
        let writer = OutputWriter(directory: output)
        // A build killed while staging: pages at temporary names, never finished nor abandoned.
        let killed = try OutputWriter.Staging(writer)
        try killed.stage([("index.html", Array("half a build".utf8)), ("photos/a.html", Array("a".utf8))])
        let temporary = folder.allFiles(under: "public").filter {
            AtomicFile.isTemporaryName(($0 as NSString).lastPathComponent)
        }
        #expect(temporary.count == 3, "two pages and the marker: \(temporary)")

        _ = try await writer.write(next, manifest: nextManifest, previous: firstManifest.files)

        let files = folder.allFiles(under: "public")
        #expect(files == ["album-a.html", "images/new.webp", "index.html", Manifest.fileName].sorted(), "\(files)")
    }

    /// A staged file's temporary name is made again from its path and its place in the order,
    /// not kept: a page staged twice has two, the later one lands, and an abandoned write leaves
    /// none of them behind; pages in folders and a name too long for a prefix take the same way.
    @Test func temporaryNamesMadeAgainFindEveryStagedFile() async throws {
        let folder = try TemporaryDirectory("staged-names")
        let output = folder.file("public")
        let writer = OutputWriter(directory: output)
        let long = String(repeating: "n", count: 250) + ".html"
        let pages = [
            ("index.html", "first"), ("photos/a b/%41.html", "a"), ("index.html", "second"), ("deep/er/\(long)", "l"),
        ]
        let staging = try OutputWriter.Staging(writer)
        try staging.stage(pages.map { ($0.0, Array($0.1.utf8)) })
        let temporary = folder.allFiles(under: "public").filter {
            AtomicFile.isTemporaryName(($0 as NSString).lastPathComponent)
        }
        #expect(temporary.count == 5, "four pages and the marker: \(temporary)")
        let files = ["deep/er/\(long)", "index.html", "photos/a b/%41.html"]
        _ = try await staging.finish(files: files, previous: nil) { sink in try sink(Array("{}".utf8)) }

        #expect(folder.allFiles(under: "public") == (files + [Manifest.fileName]).sorted())
        #expect(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8) == "second")
        #expect(try String(contentsOf: output.appendingPathComponent("photos/a b/%41.html"), encoding: .utf8) == "a")

        let abandoned = try OutputWriter.Staging(writer)
        try abandoned.stage(pages.map { ($0.0, Array(($0.1 + " again").utf8)) })
        abandoned.abandon()
        #expect(folder.allFiles(under: "public") == (files + [Manifest.fileName]).sorted(), "nothing staged is left")
    }

    /// A build killed while it wrote its first marker leaves only the marker's temporary file:
    /// the next build removes it too.
    @Test func aWriteAfterOneKilledWritingItsMarkerRemovesTheMarkersTemporaryFile() async throws {
        let (folder, output, next, firstManifest, nextManifest) = try await previousSiteAndNextFiles()
        let writer = OutputWriter(directory: output)
        let left = AtomicFile.temporaryName(for: ".tmp-staging")
        try folder.write("", to: "public/\(left)")
        _ = try await writer.write(next, manifest: nextManifest, previous: firstManifest.files)
        let files = folder.allFiles(under: "public")
        #expect(files == ["album-a.html", "images/new.webp", "index.html", Manifest.fileName].sorted(), "\(files)")
    }

    /// A build killed while it switched the folder to its files (some renamed into place, the
    /// manifest swapped or not, the last build's files not yet removed) leaves a list of what it
    /// added and what it was removing: the next build removes those it does not make, so no file
    /// outlives every manifest that listed it.
    @Test func aWriteAfterOneKilledWhileSwitchingRemovesWhatItLeft() async throws {
        let (folder, output, next, _, nextManifest) = try await previousSiteAndNextFiles()
        let writer = OutputWriter(directory: output)
        // The killed build's state: its files and manifest in place, the old image not removed.
        _ = try await writer.write(next, manifest: nextManifest, previous: nil)
        #expect(folder.allFiles(under: "public").contains("images/old.webp"))
        try folder.write("images/old.webp\nalbum-a.html\nimages/new.webp", to: "public/.tmp-staging")

        // The next build makes one page only, and knows of the killed build's manifest alone.
        let last = [OutputFile(path: "index.html", content: .bytes(Array("no image".utf8)))]
        let result = try await writer.write(
            last, manifest: Manifest(photos: [], files: ["index.html"]), previous: nextManifest.files)

        let files = folder.allFiles(under: "public")
        #expect(files == ["index.html", Manifest.fileName].sorted(), "\(files)")
        #expect(result.removed == 3)
    }

    /// What leaves and what arrives between two lists, sorted (walked side by side) or not (a
    /// manifest edited by hand): the same answer, and never a path out of the folder to remove.
    @Test func theFilesLeavingAndArrivingAreTheSameForSortedListsAndOthers() {
        let before = ["../outside", "a.html", "b.html", "images/x.webp", "z.html"]
        let after = ["a.html", "c.html", "images/x.webp", "images/y.webp"]
        let expected = (leaving: ["b.html", "z.html"], arriving: ["c.html", "images/y.webp"])
        let sorted = OutputWriter.Staging.difference(from: before, to: after)
        #expect(sorted.leaving == expected.leaving && sorted.arriving == expected.arriving)
        let shuffled = OutputWriter.Staging.difference(from: before.reversed(), to: after)
        #expect(shuffled.leaving == expected.leaving && shuffled.arriving == expected.arriving)
        #expect(OutputWriter.Staging.difference(from: [], to: after).arriving == after)
        #expect(
            OutputWriter.Staging.difference(from: before, to: []).leaving == [
                "a.html", "b.html", "images/x.webp", "z.html",
            ])
    }

    /// The manifest is compared with the one in place and written a part at a time: a manifest of
    /// several parts that is the same is not rewritten (same inode), and one that differs in its
    /// first part, its last, by a record more or one less, is written whole and exactly.
    @Test func aManifestOfManyPartsIsRewrittenOnlyWhenItDiffersAndThenExactly() async throws {
        let folder = try TemporaryDirectory("writer-manifest")
        let output = folder.file("public")
        let writer = OutputWriter(directory: output)
        func photo(_ number: Int, _ note: String = "") -> ManifestPhoto {
            ManifestPhoto(
                id: "p\(number)\(note)", source: "https://example.com/\(number).jpg", sha256: nil, validators: nil,
                renditions: [], error: "failed")
        }
        let base = (0..<9000).map { photo($0) }  // three parts of 4,096
        let file = output.appendingPathComponent(Manifest.fileName)
        func write(_ photos: [ManifestPhoto]) async throws -> (Data, FileStatus?) {
            let manifest = Manifest(photos: photos, files: ["index.html"])
            _ = try await writer.write([], manifest: manifest, previous: nil)
            let data = try Data(contentsOf: file)
            #expect(data == (try await manifest.encoded()))
            #expect(try Manifest.decode(data) == manifest)
            return (data, FileStatus(file))
        }
        let (_, first) = try await write(base)
        let (_, again) = try await write(base)
        #expect(
            again?.inode == first?.inode && again?.modifiedNanoseconds == first?.modifiedNanoseconds,
            "the same manifest is left in place")
        var changedFirst = base
        changedFirst[1] = photo(1, "x")
        var changedLast = base
        changedLast[8999] = photo(8999, "x")
        // Each written exactly (checked in write(_:)), whatever part it differs in.
        for photos in [changedFirst, changedLast, base + [photo(9000)], Array(base.dropLast()), [], base] {
            _ = try await write(photos)
        }
        let leftovers = folder.allFiles(under: "public").filter {
            AtomicFile.isTemporaryName(($0 as NSString).lastPathComponent)
        }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}
